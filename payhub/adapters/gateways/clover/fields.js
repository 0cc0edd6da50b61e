/*
 * payhub hosted-fields driver for Clover: the Clover iframe SDK's card elements
 * (https://docs.clover.com/docs/using-the-clover-hosted-iframe,
 * https://docs.clover.com/docs/clover-iframe-features).
 *
 * config: {sdk: [".../sdk.js"], apiAccessKey, merchantId}. new Clover(apiAccessKey,
 * {merchantId}); each card element (number, expiry, CVV, postal code) is Clover's own iframe;
 * tokenize() calls clover.createToken() and resolves {token: "clv_...", type: "Card"}: the
 * source payhub's Clover adapter charges. createToken answers invalid fields as {errors: {...}}.
 */
(function () {
  "use strict";
  var util = window.PayHubFields.util;
  var LOAD_FAILED = util.LOAD_FAILED;
  var load = util.load;
  var group = util.group;
  var ELEMENTS = [["CARD_NUMBER", "number", "Card number"], ["CARD_DATE", "date", "Expiry date"],
                  ["CARD_CVV", "cvv", "Security code"], ["CARD_POSTAL_CODE", "postal", "Billing ZIP code"]];
  function firstError(errors) {
    for (var i = 0; i < ELEMENTS.length; i++) {
      if (errors[ELEMENTS[i][0]]) return ELEMENTS[i][2] + ": " + errors[ELEMENTS[i][0]];
    }
    var keys = Object.keys(errors);
    return keys.length ? String(errors[keys[0]]) : "Check the card details.";
  }
  window.PayHubFields = window.PayHubFields || {};
  window.PayHubFields.clover = {
    createFields: function (el, options) {
      var config = options.config || {};
      var prefix = options.idPrefix || "clover";
      if (options.type !== "card") {
        return {tokenize: function () { return Promise.reject(new Error("Only cards can be used here.")); }};
      }
      var boxes = ELEMENTS.map(function (e) { return group(el, prefix + "-clover-" + e[1], e[2]); });
      var ready = load(config.sdk).then(function () {
        if (!window.Clover) throw new Error(LOAD_FAILED);
        var clover = new window.Clover(config.apiAccessKey, {merchantId: config.merchantId});
        var elements = clover.elements();
        ELEMENTS.forEach(function (e, i) { elements.create(e[0]).mount("#" + boxes[i].id); });
        return clover;
      });
      ready.catch(function () { boxes[0].textContent = LOAD_FAILED; });
      return {
        tokenize: function () {
          return ready.then(function (clover) { return clover.createToken(); }).then(function (result) {
            if (result && result.token) return {token: result.token, type: "Card"};
            throw new Error(firstError((result && result.errors) || {}));
          });
        }
      };
    }
  };
})();
