/*
 * payhub hosted-fields driver for Global Payments (GP-API): globalpayments.js
 * (https://developer.globalpay.com/ecommerce/hosted-fields).
 *
 * config: {sdk: [".../globalpayments.js"], accessToken, sandbox}: the access token is made
 * server-side for this page view by payhub's Global Payments adapter (POST /accesstoken with
 * only the PMT_POST_Create_Single permission, ten minutes), so the page can make a payment
 * method token and nothing else. GlobalPayments.configure({accessToken, apiVersion, env}) and
 * the hosted form shared with Heartland (PayHubFields.util.globalPaymentsForm in
 * static/fields/common.js). The token (PMT_...) is what payhub's adapter charges.
 */
(function () {
  "use strict";
  window.PayHubFields = window.PayHubFields || {};
  window.PayHubFields["global-payments"] = {
    createFields: function (el, options) {
      var config = options.config || {};
      return window.PayHubFields.util.globalPaymentsForm(el, options, {
        accessToken: config.accessToken,
        apiVersion: "2021-03-22",
        env: config.sandbox ? "sandbox" : "production"
      });
    }
  };
})();
