/*
 * payhub pay page and embed page behaviour (no inline script: the page's CSP forbids it).
 *
 * Reads its settings from <script type="application/json" id="payhub-config">, renders the
 * gateway's hosted fields, checks the amount against the invoice's partial-payment rules
 * (the server checks again), posts {attemptToken, amount, paymentMethodToken, methodType} as JSON
 * and never sends a card or bank number: only the hosted fields' token leaves the browser.
 *
 * Embedded in a frame, it posts {source: "payhub", type, invoiceNumber, status, ...} messages
 * to the parent: loaded, resize {height}, paid {amountPaid, amountDue}, failed {message};
 * only ever to one of the merchant's allowed origins, never to "*".
 */
(function () {
  "use strict";
  var cfg = JSON.parse(document.getElementById("payhub-config").textContent);

  // --- messages to the embedding page ------------------------------------------------------
  function parentOrigins() {
    if (!cfg.embedded || window.parent === window) return [];
    var allowed = cfg.allowedOrigins || [];
    var seen = null;
    if (window.location.ancestorOrigins && window.location.ancestorOrigins.length) {
      seen = window.location.ancestorOrigins[0];
    } else if (document.referrer) {
      try { seen = new URL(document.referrer).origin; } catch (e) { seen = null; }
    }
    if (seen !== null && seen !== window.location.origin) {
      return allowed.indexOf(seen) >= 0 ? [seen] : [];
    }
    // Unknown parent (e.g. after navigating inside the frame, in a browser without
    // ancestorOrigins): address each allowed origin; the browser delivers a message only to
    // a parent whose origin matches, so nothing reaches any other site.
    return allowed.slice();
  }
  var targets = parentOrigins();
  function post(type, extra) {
    if (!targets.length) return;
    var message = {source: "payhub", type: type, invoiceNumber: cfg.invoiceNumber, status: cfg.status};
    for (var k in extra) if (Object.prototype.hasOwnProperty.call(extra, k)) message[k] = extra[k];
    for (var i = 0; i < targets.length; i++) window.parent.postMessage(message, targets[i]);
  }
  if (targets.length) {
    post("loaded", {});
    var lastHeight = -1;
    var report = function () {
      var height = Math.ceil(document.documentElement.getBoundingClientRect().height);
      if (height !== lastHeight) { lastHeight = height; post("resize", {height: height}); }
    };
    if (window.ResizeObserver) new ResizeObserver(report).observe(document.documentElement);
    report();
  }

  var notice = document.getElementById("paid-notice");
  if (notice) notice.focus();

  // --- the payment form --------------------------------------------------------------------
  var form = document.getElementById("pay-form");
  var button = document.getElementById("pay-submit");
  if (form && button) setUpPayment();

  function setUpPayment() {
    var message = document.getElementById("pay-message");
    var amountInput = document.getElementById("amount-input");
    var submitAmount = document.getElementById("pay-submit-amount");
    var attemptToken = cfg.attemptToken;
    var inFlight = false;
    var fields = {};

    function make(method, id, type) {
      var el = document.getElementById(id);
      if (!el) return;
      // The simulator's own script, or the gateway's driver (static/fields/<gateway>.js),
      // which loads the vendor's SDK; both tokenize() to {token, type}.
      var hf = cfg.hostedFields;
      var driver = hf.gateway === "simulator" ? window.PayHubSimulator
        : (window.PayHubFields && window.PayHubFields[hf.gateway]);
      if (driver) {
        fields[method] = driver.createFields(el, {type: type, idPrefix: type, config: hf.config});
      }
    }
    make("Card", "card-fields", "card");
    make("BankAccount", "bank-fields", "bank");

    function method() {
      var picked = form.querySelector('input[name="methodType"]:checked') ||
                   form.querySelector('input[name="methodType"][type="hidden"]');
      return picked ? picked.value : "Card";
    }
    function showMethod() {
      var m = method();
      ["card-fields", "bank-fields"].forEach(function (id) {
        var el = document.getElementById(id);
        if (el) el.hidden = el.getAttribute("data-method") !== m;
      });
    }
    form.querySelectorAll('input[name="methodType"]').forEach(function (r) {
      r.addEventListener("change", showMethod);
    });

    function format(amount) {
      try {
        return new Intl.NumberFormat(undefined, {style: "currency", currency: cfg.currency}).format(+amount);
      } catch (e) { return cfg.currency + " " + amount; }
    }
    function choice() {
      return form.querySelector('input[name="amountChoice"]:checked') ||
             form.querySelector('input[name="amountChoice"][type="hidden"]');
    }
    function refreshAmount() {
      var c = choice();
      if (amountInput) amountInput.disabled = !!c && c.value !== "other";
      var value = c && c.value !== "other" ? c.getAttribute("data-amount") : (amountInput ? amountInput.value.trim() : "");
      submitAmount.textContent = value && /^\d+(\.\d+)?$/.test(value) ? format(value) : "";
    }
    form.querySelectorAll('input[name="amountChoice"]').forEach(function (r) {
      r.addEventListener("change", refreshAmount);
    });
    if (amountInput) amountInput.addEventListener("input", refreshAmount);
    refreshAmount();

    function fail(text, focusEl) {
      message.className = "message error";
      message.textContent = text;
      if (focusEl) { focusEl.setAttribute("aria-invalid", "true"); focusEl.focus(); }
      post("failed", {message: text});
    }
    function amountToPay() {
      var c = choice();
      if (c && c.value !== "other") return c.getAttribute("data-amount");
      var raw = (amountInput.value || "").trim().replace(/^[^\d.]+/, "").replace(/,/g, "");
      var digits = cfg.minorDigits;
      var pattern = digits > 0 ? new RegExp("^\\d+(\\.\\d{1," + digits + "})?$") : /^\d+$/;
      if (!pattern.test(raw)) {
        fail("Enter the amount as a number, for example " + (digits > 0 ? "25.00" : "25") + ".", amountInput);
        return null;
      }
      var value = +raw, min = +amountInput.getAttribute("data-min"), max = +amountInput.getAttribute("data-max");
      if (value < min || value <= 0) { fail("Enter at least " + format(min) + ".", amountInput); return null; }
      if (value > max) { fail("You can pay at most " + format(max) + ", the balance due.", amountInput); return null; }
      amountInput.removeAttribute("aria-invalid");
      return raw;
    }
    function busy(on) {
      inFlight = on;
      button.disabled = on;
      button.setAttribute("aria-busy", on ? "true" : "false");
      form.setAttribute("aria-busy", on ? "true" : "false");
    }

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (inFlight) return;
      message.textContent = "";
      var amount = amountToPay();
      if (amount === null) return;
      var m = method();
      var hosted = fields[m];
      if (!hosted) { fail("This payment method cannot be used on this page."); return; }
      busy(true);
      hosted.tokenize().then(function (result) {
        return fetch(cfg.urls.payments, {
          method: "POST",
          credentials: "same-origin",
          headers: {"Content-Type": "application/json", "Accept": "application/json"},
          body: JSON.stringify({attemptToken: attemptToken, amount: amount, paymentMethodToken: result.token, methodType: m})
        }).then(function (response) {
          return response.json().catch(function () { return {}; }).then(function (body) {
            return {ok: response.ok, status: response.status, body: body};
          });
        }, function () {
          // The request may or may not have arrived: keep the same attempt token, so trying
          // again cannot charge twice.
          return {ok: false, status: 0, body: {detail: "The connection failed. Check your connection and try again; you will not be charged twice."}};
        });
      }, function (error) {
        return {ok: false, status: -1, body: {detail: (error && error.message) || "Check the payment details."}, field: true};
      }).then(function (outcome) {
        if (outcome.ok) {
          cfg.status = outcome.body.status;
          post("paid", {amountPaid: outcome.body.amountPaid, amountDue: outcome.body.amountDue});
          message.className = "message ok";
          message.textContent = outcome.body.message || "Payment received.";
          window.location.replace(cfg.urls.page + "?paid=" + encodeURIComponent(outcome.body.payment.id));
          return;
        }
        busy(false);
        var body = outcome.body || {};
        if (body.nextAttemptToken) attemptToken = body.nextAttemptToken;
        if (outcome.field) {  // the hosted fields refused the input and focused the field
          message.className = "message error";
          message.textContent = body.detail;
          post("failed", {message: body.detail});
          return;
        }
        var text = body.payerMessage || body.detail || "The payment could not be completed.";
        if (outcome.status === 409) {
          text = body.payerMessage || "Another payment on this invoice is in progress or has just finished (perhaps in another tab). Reload this page to see the balance before paying again.";
        }
        fail(text);
      });
    });
  }

  // --- SMS consent after a payment ---------------------------------------------------------
  var sms = document.getElementById("sms-form");
  if (sms) {
    var smsMessage = document.getElementById("sms-message");
    var smsButton = document.getElementById("sms-submit");
    var phone = document.getElementById("sms-phone");
    var saved = document.getElementById("sms-number-saved");
    var other = document.getElementById("sms-number-other");
    // null: the number on file (shown masked); "": nothing typed where a number is needed.
    function typedNumber() {
      if (saved && saved.checked) return null;
      return phone.value.trim();
    }
    function showNumber() {
      if (saved) phone.disabled = saved.checked;
    }
    if (saved && other) {
      saved.addEventListener("change", showNumber);
      other.addEventListener("change", function () { showNumber(); phone.focus(); });
      showNumber();
    }
    sms.addEventListener("submit", function (event) {
      event.preventDefault();
      if (smsButton.disabled) return;
      var box = document.getElementById("sms-consent");
      smsMessage.className = "message error";
      smsMessage.textContent = "";
      if (!box.checked) {
        smsMessage.textContent = "Tick the box if you want texts; otherwise you can simply leave this page.";
        box.focus();
        return;
      }
      var number = typedNumber();
      if (number === "") {
        smsMessage.textContent = "Enter the US mobile number to text, or choose the number shown.";
        phone.setAttribute("aria-invalid", "true");
        phone.focus();
        return;
      }
      smsButton.disabled = true;
      fetch(cfg.urls.smsConsent, {
        method: "POST",
        credentials: "same-origin",
        headers: {"Content-Type": "application/json", "Accept": "application/json"},
        body: JSON.stringify({attemptToken: cfg.smsToken, consent: true, phone: number})
      }).then(function (response) {
        return response.json().catch(function () { return {}; }).then(function (body) {
          if (response.ok) {
            var done = document.createElement("p");
            done.className = "message ok";
            done.setAttribute("role", "status");
            done.textContent = "Thank you. Texts will go to " + body.phone + ". Reply STOP at any time to stop them.";
            sms.replaceWith(done);
            return;
          }
          smsButton.disabled = false;
          smsMessage.textContent = body.detail || "Your choice could not be saved.";
          if (response.status === 400) { phone.setAttribute("aria-invalid", "true"); phone.focus(); }
        });
      }, function () {
        smsButton.disabled = false;
        smsMessage.textContent = "The connection failed. Try again.";
      });
    });
  }
})();
