/*
 * payhub simulator hosted fields (sandbox only).
 *
 * Renders card or bank-account inputs into a container and turns what the payer types into a
 * simulator token *in the browser*. The inputs have no `name`, so a form submit never carries
 * them; only the token reaches payhub. Test numbers and their outcomes are listed in
 * docs/payments.md (e.g. 4242 4242 4242 4242 approves, 4000 0000 0000 0002 declines).
 *
 *   const fields = PayHubSimulator.createFields(document.getElementById("card"), {type: "card"});
 *   const {token, brand, last4} = await fields.tokenize();   // rejects with {field, message}
 */
(function () {
  "use strict";
  var CARDS = {
    "4242424242424242": ["sim_card_ok", "visa"],
    "5555555555554444": ["sim_card_mastercard", "mastercard"],
    "4000000000000002": ["sim_card_decline", "visa"],
    "4000000000009995": ["sim_card_insufficient", "visa"],
    "4000000000000069": ["sim_card_expired", "visa"],
    "4000000000000127": ["sim_card_cvc", "visa"],
    "4100000000000019": ["sim_card_fraud", "visa"],
    "4000000000000119": ["sim_card_processing", "visa"],
    "4000000000003238": ["sim_card_timeout", "visa"],
    "4000000000005126": ["sim_card_unavailable", "visa"]
  };
  var BANKS = {"000123456789": "sim_bank_ok", "000111111116": "sim_bank_returned"};

  function luhn(digits) {
    var sum = 0;
    for (var i = 0; i < digits.length; i++) {
      var d = +digits[digits.length - 1 - i];
      if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9; }
      sum += d;
    }
    return sum % 10 === 0;
  }
  function suffix() {
    var a = new Uint8Array(6);
    (window.crypto || window.msCrypto).getRandomValues(a);
    return Array.prototype.map.call(a, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }
  function field(container, id, label, attrs) {
    var wrap = document.createElement("div");
    wrap.className = "phsim-field";
    var l = document.createElement("label");
    l.htmlFor = id; l.textContent = label;
    var input = document.createElement("input");
    input.id = id; input.setAttribute("autocomplete", attrs.autocomplete || "off");
    input.setAttribute("inputmode", attrs.inputmode || "numeric");
    if (attrs.placeholder) input.placeholder = attrs.placeholder;
    input.setAttribute("aria-required", "true");
    wrap.appendChild(l); wrap.appendChild(input); container.appendChild(wrap);
    return input;
  }
  function fail(input, message) {
    input.setAttribute("aria-invalid", "true");
    input.focus();
    return Promise.reject({field: input.id, message: message});
  }

  function createFields(container, options) {
    var type = (options && options.type) || "card";
    var prefix = (options && options.idPrefix) || "phsim";
    container.setAttribute("data-payhub-simulator", type);
    if (type === "bank") {
      var routing = field(container, prefix + "-routing", "Routing number", {placeholder: "110000000"});
      var account = field(container, prefix + "-account", "Account number", {placeholder: "000123456789"});
      return {
        tokenize: function () {
          var r = routing.value.replace(/\D/g, ""), a = account.value.replace(/\D/g, "");
          if (r.length !== 9) return fail(routing, "Enter the 9-digit routing number.");
          if (a.length < 4 || a.length > 17) return fail(account, "Enter the account number.");
          var name = r === "110000000" ? BANKS[a] : null;
          if (!name) return fail(account, "Use a simulator test bank account.");
          routing.value = ""; account.value = "";
          return Promise.resolve({token: name + "_" + suffix(), type: "BankAccount", last4: a.slice(-4)});
        }
      };
    }
    var number = field(container, prefix + "-number", "Card number",
                       {autocomplete: "cc-number", placeholder: "4242 4242 4242 4242"});
    var expiry = field(container, prefix + "-expiry", "Expiry (MM/YY)",
                       {autocomplete: "cc-exp", placeholder: "12/34"});
    var cvc = field(container, prefix + "-cvc", "Security code", {autocomplete: "cc-csc", placeholder: "123"});
    return {
      tokenize: function () {
        var n = number.value.replace(/[\s-]/g, "");
        if (!/^\d{13,19}$/.test(n) || !luhn(n)) return fail(number, "Enter a valid card number.");
        var m = /^(\d{1,2})\s*\/\s*(\d{2})$/.exec(expiry.value.trim());
        if (!m || +m[1] < 1 || +m[1] > 12) return fail(expiry, "Enter the expiry as MM/YY.");
        if (!/^\d{3,4}$/.test(cvc.value.trim())) return fail(cvc, "Enter the 3 or 4 digit code.");
        var hit = CARDS[n];
        if (!hit) return fail(number, "Use a simulator test card number.");
        number.value = ""; cvc.value = "";
        return Promise.resolve({token: hit[0] + "_" + suffix(), type: "Card", brand: hit[1], last4: n.slice(-4)});
      }
    };
  }

  window.PayHubSimulator = {createFields: createFields};
})();
