/*
 * TEST FAKE of NMI's Collect.js, inline variant (https://docs.nmi.com/docs/collectjs), served by
 * playwright in place of https://sandbox.nmi.com/token/Collect.js. Surface as documented:
 *
 * - The script tag carries data-tokenization-key; CollectJS.configure({variant: "inline",
 *   fields: {ccnumber|ccexp|cvv: {selector, ...}}, paymentSelector (default "#payButton"),
 *   callback, validationCallback(field, valid, message), fieldsAvailableCallback,
 *   timeoutDuration, timeoutCallback}) puts one iframe (on the gateway's host, so frame-src
 *   matters) in each field's selector.
 * - Clicking the paymentSelector element, or CollectJS.startPaymentRequest(), makes every field
 *   validate "one last time": invalid fields go to validationCallback and no token is made;
 *   otherwise the token comes from the gateway (a POST from the page to the gateway's host:
 *   connect-src) and callback({tokenType: "inline", token, card: {number, bin, exp, type}})
 *   runs. Without a callback, the payment button's form is submitted with a hidden
 *   payment_token input. Tokens are single use: after a decline the fields make a new one.
 * - startPaymentRequest() before the fields are available does nothing (real Collect.js
 *   logs and ignores it): that is what fieldsAvailableCallback is for.
 */
(function () {
  "use strict";
  var ORIGIN = "https://sandbox.nmi.com";
  var script = document.querySelector("script[data-tokenization-key]");
  var key = script && script.getAttribute("data-tokenization-key");
  var config = null, values = {}, loaded = {}, available = false;
  var MESSAGES = {
    ccnumber: "Card number must be 13-19 digits and pass the check digit",
    ccexp: "Expiration date must be a present or future month and year",
    cvv: "CVV must be 3 or 4 digits"
  };
  function luhn(n) {
    var sum = 0;
    for (var i = 0; i < n.length; i++) {
      var d = +n[n.length - 1 - i];
      if (i % 2) { d *= 2; if (d > 9) d -= 9; }
      sum += d;
    }
    return sum % 10 === 0;
  }
  function valid(field, raw) {
    var v = (raw || "").replace(/\s/g, "");
    if (field === "ccnumber") return /^\d{13,19}$/.test(v) && luhn(v);
    if (field === "ccexp") return /^(0[1-9]|1[0-2])\s*\/?\s*\d{2}$/.test(v);
    if (field === "cvv") return /^\d{3,4}$/.test(v);
    return true;
  }
  function names() { return Object.keys((config && config.fields) || {}); }
  function check(field) {
    var ok = valid(field, values[field]);
    if (config.validationCallback) config.validationCallback(field, ok, ok ? "Success" : MESSAGES[field]);
    return ok;
  }
  window.addEventListener("message", function (event) {
    var d = event.data;
    if (event.origin !== ORIGIN || !d || !d.fakeCollect || !config) return;
    if (d.loaded) {
      loaded[d.field] = true;
      if (!available && names().every(function (n) { return loaded[n]; })) {
        available = true;
        if (config.fieldsAvailableCallback) config.fieldsAvailableCallback();
      }
      return;
    }
    values[d.field] = d.value;
    if (d.blur) check(d.field);
  });
  function startPaymentRequest(event) {
    if (!config) throw new Error("Collect.js has not been configured");
    if (!available) { console.warn("Collect.js: fields are not available yet"); return; }
    var bad = names().filter(function (n) { return !check(n); });
    if (bad.length) return;  // the validation callbacks told the page
    var timer = setTimeout(function () { if (config.timeoutCallback) config.timeoutCallback(); },
                           config.timeoutDuration || 0);
    fetch(ORIGIN + "/token/api/create", {
      method: "POST",
      headers: {"Content-Type": "application/x-www-form-urlencoded"},
      body: "tokenization_key=" + encodeURIComponent(key) +
            "&ccnumber=" + encodeURIComponent(values.ccnumber.replace(/\s/g, "")) +
            "&ccexp=" + encodeURIComponent(values.ccexp.replace(/[\s\/]/g, ""))
    }).then(function (r) { return r.json(); }).then(function (body) {
      clearTimeout(timer);
      var response = {tokenType: "inline", token: body.token, initiatedBy: event || null, card: body.card};
      if (config.callback) { config.callback(response); return; }
      var button = document.querySelector(config.paymentSelector || "#payButton");
      var form = button && button.form;
      if (!form) return;
      var hidden = document.createElement("input");
      hidden.type = "hidden"; hidden.name = "payment_token"; hidden.value = body.token;
      form.appendChild(hidden);
      form.submit();
    });
  }
  window.CollectJS = {
    configure: function (options) {
      if (!key) throw new Error("Collect.js needs data-tokenization-key on its script tag");
      config = options || {};
      if ((config.variant || (script && script.getAttribute("data-variant"))) !== "inline") {
        throw new Error("this fake models only the inline variant");
      }
      names().forEach(function (n) {
        var slot = document.querySelector(config.fields[n].selector);
        if (!slot) return;
        var frame = document.createElement("iframe");
        frame.title = config.fields[n].title || n;
        frame.src = ORIGIN + "/token/inline/field.html#" + n;
        slot.appendChild(frame);
      });
      document.querySelectorAll(config.paymentSelector || "#payButton").forEach(function (b) {
        b.addEventListener("click", function (e) { e.preventDefault(); startPaymentRequest(e); });
      });
    },
    startPaymentRequest: startPaymentRequest
  };
})();
