/*
 * payhub hosted-fields driver for Fiserv CommerceHub: Secure Data Capture iFrame v2
 * (Fiserv/Commerce-Hub docs, "Secure Data Capture - iFrame v2 Integration Guide").
 *
 * config: {sdk: [".../saq-a.js"], sandbox}. window.fiserv.commercehub.createPaymentForm(
 * {data: {environment: "CERT" | "PROD", fields: {cardNumber, nameOnCard, expiration,
 * securityCode: {parentElementId}}}, hooks: {}}) resolves to the form, whose fields are
 * CommerceHub's iframes. tokenize(context) asks payhub for the credentials of this submission
 * (context.checkout() -> POST /pay/{token}/session -> payhub's Fiserv adapter, POST
 * /payments-vas/v1/security/credentials) and calls form.submit({apiKey, accessToken,
 * createToken: false, publicKey, keyId, merchantId, terminalId}); when it resolves, the card is
 * in the session and the token is its sessionId, which payhub's adapter charges as a
 * PaymentSession for exactly the amount on the button (or saves, on the approval page).
 */
(function () {
  "use strict";
  var util = window.PayHubFields.util;
  var LOAD_FAILED = util.LOAD_FAILED;
  var FIELDS = [["cardNumber", "Card number"], ["nameOnCard", "Name on card"],
                ["expiration", "Expiry (MM/YY)"], ["securityCode", "Security code"]];

  function problem(error) {
    var text = error && (error.message || (error.error && error.error[0] && error.error[0].message));
    return text || "Check the card details.";
  }

  window.PayHubFields = window.PayHubFields || {};
  window.PayHubFields.fiserv = {
    createFields: function (el, options) {
      var config = options.config || {};
      var prefix = options.idPrefix || "fiserv";
      if (options.type !== "card") {
        return {tokenize: function () { return Promise.reject(new Error("Only cards can be used here.")); }};
      }
      var fields = {};
      FIELDS.forEach(function (f) {
        var box = util.group(el, prefix + "-ch-" + f[0], f[1]);
        fields[f[0]] = {parentElementId: box.id};
      });
      var ready = util.load(config.sdk).then(function () {
        var ch = window.fiserv && window.fiserv.commercehub;
        if (!ch || typeof ch.createPaymentForm !== "function") throw new Error(LOAD_FAILED);
        return ch.createPaymentForm({data: {environment: config.sandbox ? "CERT" : "PROD", fields: fields},
                                     hooks: {}});
      });
      ready.catch(function () { el.querySelector(".vendor-field").textContent = LOAD_FAILED; });
      return {
        tokenize: function (context) {
          if (!context || typeof context.checkout !== "function") {
            return Promise.reject(new Error("This page cannot start a CommerceHub payment. Reload it."));
          }
          return ready.then(function (form) {
            return context.checkout().then(function (made) {
              if (!made || !made.sessionId || !made.accessToken) throw new Error("The payment could not be started. Try again.");
              return form.submit({apiKey: made.apiKey, accessToken: made.accessToken, createToken: false,
                                  publicKey: made.publicKey, keyId: made.keyId,
                                  merchantId: made.merchantId, terminalId: made.terminalId})
                .then(function () { return {token: made.sessionId, type: "Card"}; },
                      function (error) { throw new Error(problem(error)); });
            });
          });
        }
      };
    }
  };
})();
