/*
 * payhub hosted-fields driver for PayPal: JavaScript SDK v5 Card Fields
 * (https://developer.paypal.com/docs/checkout/reference/customize-sdk/ for the script URL and
 * its client-id, components, currency, intent and vault parameters; "Integrate Card Fields",
 * developer.paypal.com/v5/expanded/integrate, for paypal.CardFields).
 *
 * config: {sdk: ["https://www.paypal.com/sdk/js"], clientId}. The script is loaded with
 * client-id, components=card-fields, the invoice's currency and intent (capture, or authorize
 * for authorize-only invoices), or vault=true on the schedule approval page.
 * paypal.CardFields({createOrder | createVaultSetupToken, onApprove, onError}) renders PayPal's
 * name, number, expiry and CVV frames. tokenize(context) calls cardFields.submit(): Card Fields
 * then asks createOrder for the order, which is made server-side for exactly the amount on the
 * button (context.checkout() -> POST /pay/{token}/session -> payhub's PayPal adapter, POST
 * /v2/checkout/orders), confirms the card on it in PayPal's frames and calls onApprove
 * ({orderID}). The token is that order id, which payhub's adapter completes (captures or
 * authorizes); the server refuses it for any other amount. On the approval page the session is
 * a vault setup token (POST /v3/vault/setup-tokens) and onApprove brings {vaultSetupToken}.
 */
(function () {
  "use strict";
  var util = window.PayHubFields.util;
  var LOAD_FAILED = util.LOAD_FAILED;

  function problem(error) {
    var text = error && (error.message || String(error));
    if (text && /INVALID_NUMBER|INVALID_EXPIRY|INVALID_CVV|INVALID_NAME/.test(text)) {
      return "Check the card details: " + text.replace(/_/g, " ").toLowerCase() + ".";
    }
    return text || "Check the card details.";
  }

  function scriptUrl(config, options) {
    var params = ["client-id=" + encodeURIComponent(config.clientId), "components=card-fields"];
    if (options.save) {
      params.push("vault=true");
    } else {
      params.push("currency=" + encodeURIComponent(options.currency || "USD"));
      params.push("intent=" + (options.authorizeOnly ? "authorize" : "capture"));
    }
    return config.sdk[0] + "?" + params.join("&");
  }

  window.PayHubFields = window.PayHubFields || {};
  window.PayHubFields.paypal = {
    createFields: function (el, options) {
      var config = options.config || {};
      var prefix = options.idPrefix || "paypal";
      if (options.type !== "card") {
        return {tokenize: function () { return Promise.reject(new Error("Only cards can be used here.")); }};
      }
      var boxes = {
        name: util.group(el, prefix + "-pp-name", "Name on card"),
        number: util.group(el, prefix + "-pp-number", "Card number"),
        expiry: util.group(el, prefix + "-pp-expiry", "Expiry (MM / YY)"),
        cvv: util.group(el, prefix + "-pp-cvv", "Security code")
      };
      var current = null;  // the tokenize() in progress: {context, resolve, reject}
      function settle(outcome, value) {
        var c = current;
        current = null;
        if (c) c[outcome](value);
      }
      function session(name) {
        if (!current) return Promise.reject(new Error("Press Pay to start the payment."));
        return current.context.checkout().then(function (made) {
          if (!made || !made[name]) throw new Error("The payment could not be started. Try again.");
          return made[name];
        }).catch(function (error) { settle("reject", error); throw error; });
      }
      var ready = util.load([scriptUrl(config, options)]).then(function () {
        var paypal = window.paypal;
        if (!paypal || typeof paypal.CardFields !== "function") throw new Error(LOAD_FAILED);
        var settings = {
          onApprove: function (data) {
            var token = data && (options.save ? data.vaultSetupToken : data.orderID);
            if (token) settle("resolve", {token: token, type: "Card"});
            else settle("reject", new Error("PayPal did not confirm the card. Try again."));
          },
          onError: function (error) { settle("reject", new Error(problem(error))); }
        };
        if (options.save) settings.createVaultSetupToken = function () { return session("vaultSetupToken"); };
        else settings.createOrder = function () { return session("orderId"); };
        var cardFields = paypal.CardFields(settings);
        if (typeof cardFields.isEligible === "function" && !cardFields.isEligible()) {
          throw new Error("Card payments through PayPal are not available for this merchant.");
        }
        cardFields.NameField().render("#" + boxes.name.id);
        cardFields.NumberField().render("#" + boxes.number.id);
        cardFields.ExpiryField().render("#" + boxes.expiry.id);
        cardFields.CVVField().render("#" + boxes.cvv.id);
        return cardFields;
      });
      ready.catch(function (error) { boxes.number.textContent = (error && error.message) || LOAD_FAILED; });
      return {
        tokenize: function (context) {
          return ready.then(function (cardFields) {
            if (!context || typeof context.checkout !== "function") {
              throw new Error("This page cannot start a PayPal payment. Reload it.");
            }
            return new Promise(function (resolve, reject) {
              current = {context: context, resolve: resolve, reject: reject};
              cardFields.submit().catch(function (error) { settle("reject", new Error(problem(error))); });
            });
          });
        }
      };
    }
  };
})();
