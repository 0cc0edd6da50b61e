/*
 * payhub hosted-fields driver for Square: the Web Payments SDK card payment method
 * (https://developer.squareup.com/reference/sdks/web/payments).
 *
 * config: {sdk: [".../v1/square.js"], applicationId, locationId}. The card is typed in Square's
 * iframe; tokenize() resolves {token: "cnon:...", type: "Card"}, the source_id payhub's Square
 * adapter charges.
 */
(function () {
  "use strict";
  var util = window.PayHubFields.util;
  var LOAD_FAILED = util.LOAD_FAILED;
  var load = util.load;
  var group = util.group;
  window.PayHubFields = window.PayHubFields || {};
  window.PayHubFields.square = {
    createFields: function (el, options) {
      var config = options.config || {};
      var prefix = options.idPrefix || "square";
      if (options.type !== "card") {
        return {tokenize: function () { return Promise.reject(new Error("Only cards can be used here.")); }};
      }
      var box = group(el, prefix + "-square-card", "Card details");
      var ready = load(config.sdk).then(function () {
        if (!window.Square) throw new Error(LOAD_FAILED);
        var payments = window.Square.payments(config.applicationId, config.locationId);
        return payments.card().then(function (card) {
          return card.attach("#" + box.id).then(function () { return card; });
        });
      });
      ready.catch(function () { box.textContent = LOAD_FAILED; });
      return {
        tokenize: function () {
          return ready.then(function (card) { return card.tokenize(); }).then(function (result) {
            if (result.status === "OK") return {token: result.token, type: "Card"};
            var first = result.errors && result.errors[0];
            throw new Error((first && first.message) || "Check the card details.");
          });
        }
      };
    }
  };
})();
