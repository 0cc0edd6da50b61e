/* payhub schedule approval page: tokenize the payment method with the gateway's hosted fields
 * (the simulator's or a real gateway's driver, chosen by the server), then
 * submit the form. Only the token leaves the page; the fields have no name attribute. */
(function () {
  "use strict";
  var form = document.getElementById("approve-form");
  var mount = document.getElementById("card-fields");
  var configEl = document.getElementById("approve-config");
  var settings = configEl ? JSON.parse(configEl.textContent) : {gateway: "simulator", config: {}};
  // The simulator's script, or the gateway's driver (static/fields/<gateway>.js).
  var driver = settings.gateway === "simulator" ? window.PayHubSimulator
    : (window.PayHubFields && window.PayHubFields[settings.gateway]);
  if (!form || !mount || !driver) return;
  var fields = driver.createFields(mount, {type: "card", idPrefix: "approve", config: settings.config, save: true});
  // Gateways whose session is made per payment (PayPal's vault setup token...): the driver's
  // tokenize(context) calls context.checkout() for the session the card is saved under.
  function checkout() {
    return fetch(form.getAttribute("action") + "/session", {
      method: "POST",
      credentials: "same-origin",
      headers: {"Content-Type": "application/json", "Accept": "application/json"},
      body: "{}"
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (body) {
        if (!response.ok) throw new Error(body.payerMessage || body.detail || "The card could not be checked. Try again.");
        return body.session || {};
      });
    }, function () {
      throw new Error("The connection failed. Check your connection and try again.");
    });
  }
  var error = document.getElementById("approve-error");
  var button = document.getElementById("approve-button");
  var submitting = false;
  form.addEventListener("submit", function (event) {
    if (document.getElementById("payment-method-token").value) return;
    event.preventDefault();
    if (submitting) return;
    submitting = true;
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    error.hidden = true;
    fields.tokenize({amount: null, checkout: checkout}).then(function (result) {
      document.getElementById("payment-method-token").value = result.token;
      document.getElementById("method-type").value = result.type;
      form.submit();
    }, function (problem) {
      error.textContent = problem.message || "Check your payment details.";
      error.hidden = false;
      submitting = false;
      button.disabled = false;
      button.removeAttribute("aria-busy");
    });
  });
})();
