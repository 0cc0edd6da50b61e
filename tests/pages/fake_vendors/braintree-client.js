/*
 * TEST FAKE of braintree-web's client module (https://braintree.github.io/braintree-web/current/
 * module-braintree-web_client.html), served in place of
 * https://js.braintreegateway.com/web/3.136.0/js/client.min.js: braintree.client.create(
 * {authorization}) resolves a client for a tokenization key (sandbox_… on this fake) and
 * rejects anything else with a BraintreeError-like {code: "CLIENT_INVALID_AUTHORIZATION"}.
 */
(function () {
  "use strict";
  window.braintree = window.braintree || {};
  window.braintree.client = {
    create: function (options) {
      var key = options && options.authorization;
      if (!/^sandbox_[a-z0-9]+_[a-z0-9]+$/.test(key || "")) {
        return Promise.reject({name: "BraintreeError", code: "CLIENT_INVALID_AUTHORIZATION",
          message: "Authorization is invalid. Make sure your client token or tokenization key is valid."});
      }
      return Promise.resolve({authorization: key, environment: "sandbox"});
    }
  };
})();
