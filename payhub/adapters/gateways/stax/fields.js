/*
 * payhub hosted-fields driver for Stax: Stax.js (https://docs.staxpayments.com/docs/staxjs).
 *
 * config: {sdk: [".../staxjs-captcha.js"], webPaymentsToken: "..."}.
 * new StaxJs(webPaymentsToken, {number: {id}, cvv: {id}}) puts Stax's number and CVV iframes in
 * two boxes; showCardForm() draws them. The name on the card and the expiry are ordinary inputs
 * (Stax.js takes them in tokenize's extraDetails: firstname, lastname, month, year, method).
 * tokenize() resolves the stored payment method Stax made; its id is what payhub's Stax adapter
 * charges (payment_method_id). A refused card rejects with the API's field messages.
 */
(function () {
  "use strict";
  var util = window.PayHubFields.util;
  var LOAD_FAILED = util.LOAD_FAILED;
  var load = util.load;
  var group = util.group;

  function input(el, id, label, attrs) {
    var l = document.createElement("label");
    l.className = "field-label";
    l.htmlFor = id;
    l.textContent = label;
    var i = document.createElement("input");
    i.id = id;
    Object.keys(attrs || {}).forEach(function (k) { i.setAttribute(k, attrs[k]); });
    el.appendChild(l);
    el.appendChild(i);
    return i;
  }

  function messageOf(err) {
    if (!err) return "Check the card details.";
    if (typeof err === "string") return err;
    if (err.message && typeof err.message === "string") return err.message;
    var texts = [];
    Object.keys(err).forEach(function (k) {
      var v = err[k];
      if (Array.isArray(v)) texts = texts.concat(v.filter(function (s) { return typeof s === "string"; }));
      else if (typeof v === "string") texts.push(v);
    });
    return texts.length ? texts.join(" ") : "Check the card details.";
  }

  window.PayHubFields = window.PayHubFields || {};
  window.PayHubFields.stax = {
    createFields: function (el, options) {
      var config = options.config || {};
      var prefix = options.idPrefix || "stax";
      if (options.type !== "card") {
        return {tokenize: function () { return Promise.reject(new Error("Only cards can be used here.")); }};
      }
      var name = input(el, prefix + "-stax-name", "Name on card", {autocomplete: "cc-name"});
      var number = group(el, prefix + "-stax-number", "Card number");
      var month = input(el, prefix + "-stax-month", "Expiry month (MM)",
                        {autocomplete: "cc-exp-month", inputmode: "numeric", maxlength: "2"});
      var year = input(el, prefix + "-stax-year", "Expiry year (YYYY)",
                       {autocomplete: "cc-exp-year", inputmode: "numeric", maxlength: "4"});
      var cvv = group(el, prefix + "-stax-cvv", "Security code");
      var ready = load(config.sdk).then(function () {
        if (typeof window.StaxJs !== "function") throw new Error(LOAD_FAILED);
        var stax = new window.StaxJs(config.webPaymentsToken, {
          number: {id: number.id, placeholder: "0000 0000 0000 0000"},
          cvv: {id: cvv.id, placeholder: "CVV"}
        });
        return Promise.resolve(stax.showCardForm()).then(function () { return stax; });
      });
      ready.catch(function () { number.textContent = LOAD_FAILED; });
      return {
        tokenize: function () {
          var parts = name.value.trim().split(/\s+/);
          if (!parts[0]) { name.focus(); return Promise.reject(new Error("Enter the name on the card.")); }
          if (!/^(0?[1-9]|1[0-2])$/.test(month.value.trim())) {
            month.focus();
            return Promise.reject(new Error("Enter the expiry month as MM."));
          }
          if (!/^20\d\d$/.test(year.value.trim())) {
            year.focus();
            return Promise.reject(new Error("Enter the expiry year as YYYY."));
          }
          var details = {
            firstname: parts[0],
            lastname: parts.length > 1 ? parts.slice(1).join(" ") : parts[0],
            month: month.value.trim(),
            year: year.value.trim(),
            method: "card"
          };
          return ready.then(function (stax) { return stax.tokenize(details); }).then(function (made) {
            if (made && typeof made.id === "string" && made.id) return {token: made.id, type: "Card"};
            throw new Error("Check the card details.");
          }, function (err) {
            if (err && err.message === LOAD_FAILED) throw err;
            throw new Error(messageOf(err));
          });
        }
      };
    }
  };
})();
