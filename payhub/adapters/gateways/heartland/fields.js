/*
 * payhub hosted-fields driver for Heartland (Portico): globalpayments.js
 * (https://developer.heartlandpaymentsystems.com/documentation/tokenization).
 *
 * config: {sdk: [".../globalpayments.js"], publicApiKey: "pkapi_cert_..."}.
 * GlobalPayments.configure({publicApiKey}) and the hosted form shared with Global Payments
 * (PayHubFields.util.globalPaymentsForm in static/fields/common.js: Heartland's iframes and its
 * "Use this card" button). The token is the single-use token (supt_...) payhub's Heartland
 * adapter charges.
 */
(function () {
  "use strict";
  window.PayHubFields = window.PayHubFields || {};
  window.PayHubFields.heartland = {
    createFields: function (el, options) {
      var config = options.config || {};
      return window.PayHubFields.util.globalPaymentsForm(el, options, {publicApiKey: config.publicApiKey});
    }
  };
})();
