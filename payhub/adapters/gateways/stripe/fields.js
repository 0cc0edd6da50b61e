/*
 * payhub hosted-fields driver for Stripe: Stripe.js v3 Card Element (https://docs.stripe.com/js).
 *
 * PayHubFields.stripe.createFields(el, {type: "card", idPrefix, config}) -> {tokenize()}
 * config: {sdk: ["https://js.stripe.com/v3/"], publishableKey: "pk_test_..."}.
 * The card is typed in Stripe's iframe; tokenize() calls stripe.createPaymentMethod and resolves
 * {token: "pm_...", type: "Card"}: the PaymentMethod id payhub's Stripe adapter charges.
 */
(function () {
  "use strict";
  var util = window.PayHubFields.util;
  var LOAD_FAILED = util.LOAD_FAILED;
  var load = util.load;
  var group = util.group;
  window.PayHubFields = window.PayHubFields || {};
  window.PayHubFields.stripe = {
    createFields: function (el, options) {
      var config = options.config || {};
      var prefix = options.idPrefix || "stripe";
      if (options.type !== "card") {
        return {tokenize: function () { return Promise.reject(new Error("Only cards can be used here.")); }};
      }
      var box = group(el, prefix + "-stripe-card", "Card details");
      var ready = load(config.sdk).then(function () {
        if (!window.Stripe) throw new Error(LOAD_FAILED);
        var stripe = window.Stripe(config.publishableKey);
        var card = stripe.elements().create("card");
        card.mount(box);
        return {stripe: stripe, card: card};
      });
      ready.catch(function () { box.textContent = LOAD_FAILED; });
      return {
        tokenize: function () {
          return ready.then(function (s) {
            return s.stripe.createPaymentMethod({type: "card", card: s.card});
          }).then(function (result) {
            if (result.error) throw new Error(result.error.message || "Check the card details.");
            return {token: result.paymentMethod.id, type: "Card"};
          });
        }
      };
    }
  };
})();
