/*
 * payhub hosted-fields driver for Worldpay: the eProtect iframe client (Worldpay eProtect
 * Integration Guide, iframe API).
 *
 * config: {sdk: [".../eProtect-iframe-client.min.js"], paypageId: "..."}.
 * new EprotectIframeClient({paypageId, reportGroup, div, callback, showCvv, ...}) puts Worldpay's
 * card iframe (number, expiry, CVV) in the element; getPaypageRegistrationId({id, orderId})
 * asks it to register the card, and the callback receives {response: "870",
 * paypageRegistrationId, lastFour} on success, another 87x/88x code for a refused card, or
 * {timeout: true}. The registration id is what payhub's Worldpay adapter charges
 * (paypage/paypageRegistrationId). Older eProtect scripts name the class LitlePayframeClient.
 */
(function () {
  "use strict";
  var util = window.PayHubFields.util;
  var LOAD_FAILED = util.LOAD_FAILED;
  var REPORT_GROUP = "payhub";  // the adapter's reportGroup
  var CODES = {
    "871": "The card number is not valid.", "872": "The card number is too short.",
    "873": "The card number is too long.", "874": "The card number must be digits only.",
    "875": "The card number is not valid.", "876": "The card number is not valid.",
    "881": "The security code is not valid.", "882": "The security code is too short.",
    "883": "The security code is too long.", "884": "Card registration is unavailable. Try again.",
    "889": "Card registration failed. Try again."
  };
  var count = 0;
  window.PayHubFields = window.PayHubFields || {};
  window.PayHubFields.worldpay = {
    createFields: function (el, options) {
      var config = options.config || {};
      var prefix = options.idPrefix || "worldpay";
      if (options.type !== "card") {
        return {tokenize: function () { return Promise.reject(new Error("Only cards can be used here.")); }};
      }
      var box = util.group(el, prefix + "-worldpay-card", "Card details");
      var pending = null;
      function answered(response) {
        var p = pending;
        pending = null;
        if (!p) return;
        if (!response || response.timeout) { p.reject(new Error("Card registration timed out. Try again.")); return; }
        if (response.response === "870" && response.paypageRegistrationId) {
          p.resolve({token: response.paypageRegistrationId, type: "Card"});
          return;
        }
        p.reject(new Error(CODES[response.response] || response.message || "Check the card details."));
      }
      var ready = util.load(config.sdk).then(function () {
        var Client = window.EprotectIframeClient || window.LitlePayframeClient;
        if (typeof Client !== "function") throw new Error(LOAD_FAILED);
        return new Client({
          paypageId: config.paypageId,
          reportGroup: REPORT_GROUP,
          style: "payhub",
          timeout: 15000,
          div: box.id,
          height: "200",
          callback: answered,
          showCvv: true,
          placeholderText: {cvv: "CVV", accountNumber: "Card number"}
        });
      });
      ready.catch(function () { box.textContent = LOAD_FAILED; });
      return {
        tokenize: function () {
          return ready.then(function (client) {
            if (pending) throw new Error("The card is already being checked.");
            return new Promise(function (resolve, reject) {
              pending = {resolve: resolve, reject: reject};
              var id = "payhub" + Date.now().toString(36) + (++count);
              client.getPaypageRegistrationId({id: id, orderId: id});
            });
          });
        }
      };
    }
  };
})();
