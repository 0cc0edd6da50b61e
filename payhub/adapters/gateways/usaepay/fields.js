/*
 * payhub hosted-fields driver for USAePay: Pay.js v2, the payment card entry
 * (https://help.usaepay.info/developer/javascript-library/).
 *
 * config: {sdk: [".../js/v2/pay.js"], publicKey: "_..."}. new usaepay.Client(publicKey);
 * createPaymentCardEntry() puts USAePay's iframe (number, expiry, CVV) in the element;
 * tokenize() calls client.getPaymentKey(card) and resolves {token: <payment key>, type: "Card"}:
 * the single-use payment_key payhub's USAePay adapter sends with cc:sale / cc:authonly.
 * getPaymentKey answers a bad card as {error: {message}}.
 */
(function () {
  "use strict";
  var util = window.PayHubFields.util;
  var LOAD_FAILED = util.LOAD_FAILED;
  var load = util.load;
  var group = util.group;
  window.PayHubFields = window.PayHubFields || {};
  window.PayHubFields.usaepay = {
    createFields: function (el, options) {
      var config = options.config || {};
      var prefix = options.idPrefix || "usaepay";
      if (options.type !== "card") {
        return {tokenize: function () { return Promise.reject(new Error("Only cards can be used here.")); }};
      }
      var box = group(el, prefix + "-usaepay-card", "Card details");
      var ready = load(config.sdk).then(function () {
        if (!window.usaepay || !window.usaepay.Client) throw new Error(LOAD_FAILED);
        var client = new window.usaepay.Client(config.publicKey);
        var card = client.createPaymentCardEntry();
        card.generateHTML({});
        card.addHTML(box.id);
        return {client: client, card: card};
      });
      ready.catch(function () { box.textContent = LOAD_FAILED; });
      return {
        tokenize: function () {
          return ready.then(function (s) { return s.client.getPaymentKey(s.card); }).then(function (result) {
            if (typeof result === "string" && result) return {token: result, type: "Card"};
            var message = result && result.error && (result.error.message || result.error);
            throw new Error(typeof message === "string" && message ? message : "Check the card details.");
          });
        }
      };
    }
  };
})();
