/*
 * payhub hosted-fields driver for Checkout.com: Frames v2, the single card frame
 * (https://www.checkout.com/docs/payments/accept-payments/accept-a-payment-using-frames,
 * reference: https://www.checkout.com/docs/developer-resources/sdks/frames-reference).
 *
 * config: {sdk: ["https://cdn.checkout.com/js/framesv2.min.js"], publicKey: "pk_sbox_..."}.
 * Frames mounts its frame in the element with class "card-frame"; the card is typed there.
 * tokenize() calls Frames.submitCard() and resolves {token: "tok_...", type: "Card"}: the
 * source {type: "token"} payhub's Checkout.com adapter charges. Frames locks the form after a
 * submission, so the driver calls Frames.enableSubmitForm() to let the payer try again.
 */
(function () {
  "use strict";
  var util = window.PayHubFields.util;
  var LOAD_FAILED = util.LOAD_FAILED;
  var load = util.load;
  var group = function (el, id, label) { return util.group(el, id, label, "card-frame"); };
  window.PayHubFields = window.PayHubFields || {};
  window.PayHubFields["checkout-com"] = {
    createFields: function (el, options) {
      var config = options.config || {};
      var prefix = options.idPrefix || "checkout-com";
      if (options.type !== "card") {
        return {tokenize: function () { return Promise.reject(new Error("Only cards can be used here.")); }};
      }
      var box = group(el, prefix + "-checkout-com-card", "Card details");
      var ready = load(config.sdk).then(function () {
        if (!window.Frames) throw new Error(LOAD_FAILED);
        window.Frames.init({publicKey: config.publicKey});  // mounts in the .card-frame element
        return window.Frames;
      });
      ready.catch(function () { box.textContent = LOAD_FAILED; });
      return {
        tokenize: function () {
          return ready.then(function (frames) {
            if (!frames.isCardValid()) throw new Error("Check the card details: the number, expiry date and security code.");
            return frames.submitCard().then(function (data) {
              frames.enableSubmitForm();
              return {token: data.token, type: "Card"};
            }, function () {
              frames.enableSubmitForm();
              throw new Error("The card could not be checked. Check the details and try again.");
            });
          });
        }
      };
    }
  };
})();
