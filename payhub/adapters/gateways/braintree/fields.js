/*
 * payhub hosted-fields driver for Braintree: braintree-web client + hostedFields
 * (https://braintree.github.io/braintree-web/current/module-braintree-web_hosted-fields.html).
 *
 * config: {sdk: [".../client.min.js", ".../hosted-fields.min.js"], tokenizationKey}. Each field
 * is a Braintree iframe; tokenize() resolves {token: payload.nonce, type: "Card"}: the
 * single-use payment method id payhub's Braintree adapter passes as paymentMethodId.
 */
(function () {
  "use strict";
  var util = window.PayHubFields.util;
  var LOAD_FAILED = util.LOAD_FAILED;
  var load = util.load;
  var slot = util.group;
  window.PayHubFields = window.PayHubFields || {};
  window.PayHubFields.braintree = {
    createFields: function (el, options) {
      var config = options.config || {};
      var prefix = (options.idPrefix || "bt") + "-braintree";
      if (options.type !== "card") {
        return {tokenize: function () { return Promise.reject(new Error("Only cards can be used here.")); }};
      }
      slot(el, prefix + "-number", "Card number");
      slot(el, prefix + "-expiry", "Expiry (MM/YY)");
      slot(el, prefix + "-cvv", "Security code");
      var ready = load(config.sdk).then(function () {
        if (!window.braintree) throw new Error(LOAD_FAILED);
        return window.braintree.client.create({authorization: config.tokenizationKey});
      }).then(function (client) {
        return window.braintree.hostedFields.create({
          client: client,
          fields: {
            number: {container: "#" + prefix + "-number"},
            expirationDate: {container: "#" + prefix + "-expiry", placeholder: "MM/YY"},
            cvv: {container: "#" + prefix + "-cvv"}
          }
        });
      });
      ready.catch(function () { el.appendChild(document.createTextNode(LOAD_FAILED)); });
      return {
        tokenize: function () {
          return ready.then(function (fields) { return fields.tokenize(); }).then(function (payload) {
            return {token: payload.nonce, type: "Card"};
          }, function (error) {
            throw new Error((error && error.message) || "Check the card details.");
          });
        }
      };
    }
  };
})();
