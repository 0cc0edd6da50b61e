/*
 * payhub hosted-fields driver for Elavon Converge: the Lightbox (Converge Hosted Payments,
 * PayWithConverge.js). Not Checkout.js, which reads the card number from the merchant's own
 * inputs: here the card is typed only in Converge's lightbox frame.
 *
 * config: {sdk: [jQuery, ".../hosted-payments/PayWithConverge.js"], sandbox}. The lightbox opens
 * when the payer presses Pay: tokenize(context) asks payhub for the session (context.checkout()
 * -> POST /pay/{token}/session -> payhub's Elavon adapter, POST /hosted-payments/
 * transaction_token for a CCGETTOKEN session with ssl_verify and ssl_add_token), then
 * PayWithConverge.open({ssl_txn_auth_token}, {onApproval, onDeclined, onCancelled, onError}).
 * onApproval brings {ssl_token, ...}: the token is "<sessionToken>|<ssl_token>", with which
 * payhub's adapter makes the CCSALE (or CCAUTHONLY) of exactly the amount on the button; on the
 * approval page it saves the card.
 */
(function () {
  "use strict";
  var util = window.PayHubFields.util;
  var LOAD_FAILED = util.LOAD_FAILED;

  function reason(response, fallback) {
    var text = response && (response.ssl_result_message || response.errorMessage || response.errorName);
    return text ? fallback + " (" + text + ")" : fallback;
  }

  window.PayHubFields = window.PayHubFields || {};
  window.PayHubFields.elavon = {
    createFields: function (el, options) {
      var config = options.config || {};
      if (options.type !== "card") {
        return {tokenize: function () { return Promise.reject(new Error("Only cards can be used here.")); }};
      }
      var hint = document.createElement("p");
      hint.className = "field-hint";
      hint.id = (options.idPrefix || "elavon") + "-converge-hint";
      hint.textContent = options.save
        ? "When you press Approve, Converge's secure window opens for your card details."
        : "When you press Pay, Converge's secure window opens for your card details.";
      el.appendChild(hint);
      var ready = util.load(config.sdk).then(function () {
        if (!window.PayWithConverge || typeof window.PayWithConverge.open !== "function") throw new Error(LOAD_FAILED);
      });
      ready.catch(function () { hint.textContent = LOAD_FAILED; });
      return {
        tokenize: function (context) {
          if (!context || typeof context.checkout !== "function") {
            return Promise.reject(new Error("This page cannot start a Converge payment. Reload it."));
          }
          return ready.then(function () { return context.checkout(); }).then(function (made) {
            var session = made && made.sessionToken;
            if (!session) throw new Error("The payment could not be started. Try again.");
            return new Promise(function (resolve, reject) {
              window.PayWithConverge.open({ssl_txn_auth_token: session}, {
                onApproval: function (response) {
                  if (response && response.ssl_token) resolve({token: session + "|" + response.ssl_token, type: "Card"});
                  else reject(new Error("Converge did not return the card. Try again."));
                },
                onDeclined: function (response) { reject(new Error(reason(response, "The card was declined. Try another card."))); },
                onCancelled: function () { reject(new Error("No card was entered. Press the button again to enter one.")); },
                onError: function (error) { reject(new Error(reason(error, "The card could not be checked. Try again."))); }
              });
            });
          });
        }
      };
    }
  };
})();
