/* The register's enhancement (every step also works as a plain form, except card entry,
   which needs the gateway's own fields):
   - the sale page: tapping a product adds one to its quantity and announces the count;
   - the payment page: the card goes into the gateway's hosted fields (the same drivers as the
     pay page: PayHubSimulator or PayHubFields[gateway]); only the token is posted, with the
     sale key the page was made with, so a second press or a retry is the same sale. */
(function () {
  "use strict";
  document.documentElement.classList.add("has-js");

  var picked = document.getElementById("picked");
  function count() {
    var n = 0;
    document.querySelectorAll("#till-form input[type=number]").forEach(function (el) {
      var v = parseInt(el.value, 10);
      if (v > 0) n += v;
    });
    if (picked) picked.textContent = n === 1 ? "1 item picked" : n + " items picked";
  }
  document.querySelectorAll("button.pick").forEach(function (button) {
    button.addEventListener("click", function () {
      var input = document.getElementById(button.getAttribute("data-qty"));
      var v = parseInt(input.value, 10) || 0;
      if (v < 999) input.value = String(v + 1);
      count();
    });
  });
  document.querySelectorAll("#till-form input[type=number]").forEach(function (el) {
    el.addEventListener("input", count);
  });
  if (picked) count();

  var form = document.getElementById("pay-form");
  if (!form) return;
  var button = document.getElementById("pay-button");
  var status = document.getElementById("pay-status");
  var tokenField = document.getElementById("paymentMethodToken");
  var fields = null;
  var settings = document.getElementById("register-config");
  var box = document.getElementById("card-fields");
  if (settings && box) {
    var cfg = JSON.parse(settings.textContent);
    var driver = cfg.gateway === "simulator" ? window.PayHubSimulator
      : (window.PayHubFields && window.PayHubFields[cfg.gateway]);
    if (driver) {
      fields = driver.createFields(box, {type: "card", idPrefix: "card", config: cfg.config});
    } else if (status) {
      status.textContent = "The card fields could not be loaded. Choose a saved method.";
    }
  }
  function busy(on) {
    button.disabled = on;
    button.setAttribute("aria-busy", on ? "true" : "false");
  }
  function chosen() {
    var checked = form.querySelector("input[name=pay]:checked");
    return checked ? checked.value : (form.querySelector("input[name=pay]") || {}).value;
  }
  var sending = false;
  form.addEventListener("submit", function (event) {
    if (sending) { event.preventDefault(); return; }       // one sale per press
    if (chosen() !== "card" || !fields || (tokenField && tokenField.value)) {
      sending = true;
      window.setTimeout(function () { busy(true); }, 0);
      if (status) status.textContent = "Taking the payment. Keep this page open.";
      return;
    }
    event.preventDefault();
    sending = true;
    busy(true);
    if (status) status.textContent = "Checking the card…";
    fields.tokenize().then(function (result) {
      tokenField.value = result.token;
      var type = document.getElementById("methodType");
      if (type && result.type) type.value = result.type;
      if (status) status.textContent = "Taking the payment. Keep this page open.";
      form.submit();
    }, function (error) {
      sending = false;
      busy(false);
      if (status) status.textContent = (error && error.message) || "Check the card details.";
    });
  });
})();
