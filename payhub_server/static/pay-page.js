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
        fields[method] = driver.createFields(el, {type: type, idPrefix: type, config: hf.config,
                                                 currency: cfg.currency, authorizeOnly: !!cfg.authorizeOnly});
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
      ["card-fields", "bank-fields", "ach-authorization"].forEach(function (id) {
        var el = document.getElementById(id);
        if (el) el.hidden = el.getAttribute("data-method") !== m;
      });
    }
    form.querySelectorAll('input[name="methodType"]').forEach(function (r) {
      r.addEventListener("change", showMethod);
    });
    showMethod();

    // --- amounts: one documented format, never a character dropped (docs/pay-page.md) ---
    // A typed amount is digits, optionally grouped by commas in threes (1,250), then
    // optionally a point and at most the currency's minor digits (1,250.5 or 1250.50); a
    // leading "$" is allowed for US dollars and spaces around it are ignored. Anything else
    // ("1,50", "$1,00.5", "1.505", "-5", "5 00") is refused with a message, never reinterpreted.
    function parseAmount(text) {
      var s = String(text).trim();
      if (cfg.currency === "USD" && s.charAt(0) === "$") s = s.slice(1);
      var d = cfg.minorDigits;
      var fraction = d > 0 ? "(?:\\.(\\d{1," + d + "}))?" : "";
      var match = new RegExp("^(\\d{1,3}(?:,\\d{3})+|\\d+)" + fraction + "$").exec(s);
      if (!match) return null;
      var whole = match[1].replace(/,/g, "").replace(/^0+(?=\d)/, "");
      var cents = match[2] || "";
      while (cents.length < d) cents += "0";
      return d > 0 ? whole + "." + cents : whole;
    }
    // Compare two plain decimals with the same number of digits after the point, exactly.
    function compare(a, b) {
      var x = a.replace(".", "").replace(/^0+(?=\d)/, ""), y = b.replace(".", "").replace(/^0+(?=\d)/, "");
      if (x.length !== y.length) return x.length < y.length ? -1 : 1;
      return x === y ? 0 : (x < y ? -1 : 1);
    }
    // The server's money format (presenters.money): $1,234.50, or EUR 1,234.50.
    function format(plain) {
      var parts = String(plain).split(".");
      var text = parts[0].replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (parts.length > 1 ? "." + parts[1] : "");
      return cfg.currency === "USD" ? "$" + text : cfg.currency + " " + text;
    }
    function choice() {
      return form.querySelector('input[name="amountChoice"]:checked') ||
             form.querySelector('input[name="amountChoice"][type="hidden"]');
    }
    // The amount a click on Pay would charge now (plain decimal), or null.
    function currentAmount() {
      var c = choice();
      if (c && c.value !== "other") return c.getAttribute("data-amount");
      if (!amountInput) return null;
      var plain = parseAmount(amountInput.value);
      if (plain === null || compare(plain, amountInput.getAttribute("data-max")) > 0 ||
          compare(plain, amountInput.getAttribute("data-min")) < 0 || /^0+(\.0*)?$/.test(plain)) return null;
      return plain;
    }
    function refreshAmount() {
      var c = choice();
      if (amountInput) amountInput.disabled = !!c && c.value !== "other";
      var value = currentAmount();
      // The button shows exactly what will be charged, or no amount while none is valid.
      submitAmount.textContent = value === null ? "" : format(value);
      document.querySelectorAll(".ach-amount").forEach(function (el) {
        el.textContent = value === null ? "the amount shown on the button" : format(value);
      });
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
      var digits = cfg.minorDigits;
      var plain = parseAmount(amountInput.value || "");
      if (plain === null) {
        fail("Enter the amount with a point before the " + (digits > 0 ? "cents" : "end") +
             ", for example " + (digits > 0 ? "25.00 or 1,250.50" : "25 or 1,250") +
             " (commas only between thousands, at most " + digits + " decimals).", amountInput);
        return null;
      }
      var min = amountInput.getAttribute("data-min"), max = amountInput.getAttribute("data-max");
      if (compare(plain, min) < 0 || /^0+(\.0*)?$/.test(plain)) { fail("Enter at least " + format(min) + ".", amountInput); return null; }
      if (compare(plain, max) > 0) { fail("You can pay at most " + format(max) + ", the balance due.", amountInput); return null; }
      amountInput.removeAttribute("aria-invalid");
      amountInput.value = plain;  // what is charged, as the button shows it
      refreshAmount();
      return plain;
    }
    var progress = document.getElementById("pay-progress");
    var label = document.getElementById("pay-submit-label");
    var idleLabel = label ? label.textContent : "";
    // The amount, the method and the simulator's own fields cannot change while a payment
    // runs (or while an unknown outcome waits to be retried). Vendor fields live in the
    // vendor's frames and buttons (AcceptUI opens its lightbox from one), so they stay usable.
    function lock(on) {
      form.querySelectorAll('input[name="amountChoice"], #amount-input, input[name="methodType"], .hosted input, #ach-accept')
        .forEach(function (el) { el.disabled = on; });
      if (!on) refreshAmount();
    }
    // While a payment runs: the button and a status line say so, the fields cannot change.
    function busy(on, amount) {
      inFlight = on;
      button.disabled = on;
      button.setAttribute("aria-busy", on ? "true" : "false");
      form.setAttribute("aria-busy", on ? "true" : "false");
      lock(on);
      if (label) label.textContent = on ? (cfg.authorizeOnly ? "Reserving" : "Paying") : idleLabel;
      if (progress) {
        progress.textContent = on ? (cfg.authorizeOnly ? "Reserving " : "Processing your payment of ") +
          format(amount) + ". Please keep this page open." : "";
      }
      if (!on) refreshAmount();
    }

    // An attempt whose outcome is unknown (the gateway timed out, 504, or the connection
    // dropped): pressing Pay again resends it as it was (same attempt token, payment token,
    // method and amount), so the server asks the gateway again under the same key: the payer
    // can retry at once and is never charged twice.
    var pending = null;
    // Gateways whose session is bound to the amount (PayPal's order, Adyen's session...): the
    // driver's tokenize(context) calls context.checkout() when it needs the session, which asks
    // the server to make it for exactly the amount on the button (POST urls.session) and keeps
    // the signed checkout token the payment then carries (the server refuses any other amount).
    var checkoutToken = null;
    function checkout(amount, m) {
      return fetch(cfg.urls.session, {
        method: "POST",
        credentials: "same-origin",
        headers: {"Content-Type": "application/json", "Accept": "application/json"},
        body: JSON.stringify({attemptToken: attemptToken, amount: amount, methodType: m})
      }).then(function (response) {
        return response.json().catch(function () { return {}; }).then(function (body) {
          if (!response.ok) {
            throw new Error(body.payerMessage || body.detail || "The payment could not be started. Try again.");
          }
          checkoutToken = body.checkoutToken;
          return body.session || {};
        });
      }, function () {
        throw new Error("The connection failed. Check your connection and try again.");
      });
    }
    function send(token, m, amount, sentCheckout) {
      var bound = sentCheckout === undefined ? checkoutToken : sentCheckout;
      return fetch(cfg.urls.payments, {
        method: "POST",
        credentials: "same-origin",
        headers: {"Content-Type": "application/json", "Accept": "application/json"},
        body: JSON.stringify({attemptToken: attemptToken, amount: amount, paymentMethodToken: token, methodType: m,
                              debitAuthorization: m === "BankAccount" && !!(document.getElementById("ach-accept") || {}).checked,
                              checkoutToken: bound})
      }).then(function (response) {
        return response.json().catch(function () { return {}; }).then(function (body) {
          return {ok: response.ok, status: response.status, body: body, sent: {token: token, method: m, amount: amount, checkout: bound}};
        });
      }, function () {
        return {ok: false, status: 0, sent: {token: token, method: m, amount: amount, checkout: bound},
                body: {detail: "The connection failed. Check your connection and press " + button.textContent.trim() + " again; you will not be charged twice."}};
      });
    }

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (inFlight) return;
      message.textContent = "";
      var attempt;
      if (pending) {
        var again = pending;
        busy(true, again.amount);
        attempt = send(again.token, again.method, again.amount, again.checkout);
      } else {
        var amount = amountToPay();
        if (amount === null) return;
        var m = method();
        var hosted = fields[m];
        if (!hosted) { fail("This payment method cannot be used on this page."); return; }
        // A bank debit is sent only with the payer's authorization (NACHA WEB): the box.
        var accept = document.getElementById("ach-accept");
        if (m === "BankAccount" && accept && !accept.checked) {
          fail("Tick the box to authorize the bank debit, then press " + button.textContent.trim() + " again.", accept);
          return;
        }
        if (accept) accept.removeAttribute("aria-invalid");
        busy(true, amount);
        checkoutToken = null;
        // The amount goes to drivers whose session (PayPal's order, Nuvei's openOrder) or bank
        // flow (Stripe's Payment Element) is bound to it; the others ignore it.
        var context = {amount: amount, currency: cfg.currency,
                       checkout: function () { return checkout(amount, m); }};
        attempt = hosted.tokenize(context).then(function (result) {
          return send(result.token, m, amount);
        }, function (error) {
          return {ok: false, status: -1, body: {detail: (error && error.message) || "Check the payment details."}, field: true};
        });
      }
      attempt.then(function (outcome) {
        if (outcome.ok) {
          cfg.status = outcome.body.status;
          post("paid", {amountPaid: outcome.body.amountPaid, amountDue: outcome.body.amountDue});
          if (progress) progress.textContent = "Done. Loading your confirmation.";
          window.location.replace(cfg.urls.page + "?paid=" + encodeURIComponent(outcome.body.payment.id));
          return;
        }
        var body = outcome.body || {};
        pending = (outcome.status === 504 || outcome.status === 0) ? outcome.sent : null;
        busy(false);
        if (pending) {
          // Only this attempt may be retried: the amount and method stay as they were sent.
          lock(true);
          submitAmount.textContent = format(pending.amount);
        }
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
        if (pending && outcome.status === 504) {
          text = "The payment service did not answer in time. Press " + button.textContent.trim() +
                 " again to check and finish this payment: you will not be charged twice.";
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
