/*
 * payhub hosted-fields driver for Stripe (https://docs.stripe.com/js).
 *
 * PayHubFields.stripe.createFields(el, {type: "card"|"bank", idPrefix, config}) -> {tokenize()}
 * config: {sdk: ["https://js.stripe.com/v3/"], publishableKey: "pk_test_..."}.
 *
 * Cards: the Card Element; tokenize() calls stripe.createPaymentMethod({type: "card", card}) and
 * resolves {token: "pm_...", type: "Card"}: the PaymentMethod id payhub's Stripe adapter charges.
 *
 * Bank accounts (ACH Direct Debit): the Payment Element limited to us_bank_account, in deferred
 * mode (stripe.elements({mode: "payment", amount, currency: "usd", paymentMethodTypes:
 * ["us_bank_account"], paymentMethodCreation: "manual"})). The payer links the account through
 * Stripe's Financial Connections inside Stripe's frames (or enters it there for micro-deposit
 * verification), so no account or routing number is ever in payhub's page. tokenize({amount})
 * sets the chosen amount (elements.update), calls elements.submit() (Stripe's own validation),
 * then stripe.createPaymentMethod({elements}) and resolves {token: "pm_...", type:
 * "BankAccount"}, which the adapter debits with the payer's mandate acceptance.
 */
(function () {
  "use strict";
  var util = window.PayHubFields.util;
  var LOAD_FAILED = util.LOAD_FAILED;
  var load = util.load;
  var group = util.group;
  function minor(amount) {
    var parts = String(amount).split(".");
    var cents = ((parts[1] || "") + "00").slice(0, 2);
    return parseInt(parts[0], 10) * 100 + parseInt(cents, 10);
  }
  function bank(el, prefix, config) {
    var box = group(el, prefix + "-stripe-bank", "Bank account");
    var ready = load(config.sdk).then(function () {
      if (!window.Stripe) throw new Error(LOAD_FAILED);
      var stripe = window.Stripe(config.publishableKey);
      // Deferred mode needs an amount to start with; the one the payer picks replaces it.
      var elements = stripe.elements({mode: "payment", amount: 100, currency: "usd",
                                      paymentMethodTypes: ["us_bank_account"],
                                      paymentMethodCreation: "manual"});
      var payment = elements.create("payment");
      payment.mount(box);
      return {stripe: stripe, elements: elements};
    });
    ready.catch(function () { box.textContent = LOAD_FAILED; });
    return {
      tokenize: function (chosen) {
        return ready.then(function (s) {
          if (chosen && chosen.amount) s.elements.update({amount: minor(chosen.amount)});
          return s.elements.submit().then(function (submitted) {
            if (submitted && submitted.error) {
              throw new Error(submitted.error.message || "Link or enter your bank account first.");
            }
            return s.stripe.createPaymentMethod({elements: s.elements});
          });
        }).then(function (result) {
          if (result.error) throw new Error(result.error.message || "Check the bank account.");
          return {token: result.paymentMethod.id, type: "BankAccount"};
        });
      }
    };
  }
  window.PayHubFields = window.PayHubFields || {};
  window.PayHubFields.stripe = {
    createFields: function (el, options) {
      var config = options.config || {};
      var prefix = options.idPrefix || "stripe";
      if (options.type === "bank") return bank(el, prefix, config);
      if (options.type !== "card") {
        return {tokenize: function () { return Promise.reject(new Error("This payment method cannot be used here.")); }};
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
