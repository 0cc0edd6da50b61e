/*
 * TEST FAKE of braintree-web's hostedFields module (https://braintree.github.io/braintree-web/
 * current/module-braintree-web_hosted-fields.html), served in place of .../hosted-fields.min.js.
 * hostedFields.create({client, fields: {number|expirationDate|cvv: {container}}}) puts one
 * iframe per field (on assets.braintreegateway.com: frame-src) in each container and resolves
 * an instance whose tokenize() resolves {nonce, type: "CreditCard", details: {lastFour,
 * cardType}} or rejects with {code: "HOSTED_FIELDS_FIELDS_EMPTY" | "HOSTED_FIELDS_FIELDS_INVALID",
 * message, details: {invalidFieldKeys}}. The nonce comes from a POST to the client API
 * (https://payments.sandbox.braintree-api.com/graphql, connect-src) with the tokenization key.
 */
(function () {
  "use strict";
  var FRAMES = "https://assets.braintreegateway.com";
  function valid(field, v) {
    v = (v || "").replace(/\s/g, "");
    if (field === "number") return /^\d{13,19}$/.test(v);
    if (field === "expirationDate") return /^(0[1-9]|1[0-2])\/?\d{2}(\d{2})?$/.test(v);
    if (field === "cvv") return /^\d{3,4}$/.test(v);
    return true;
  }
  window.braintree = window.braintree || {};
  window.braintree.hostedFields = {
    create: function (options) {
      if (!options || !options.client) return Promise.reject({code: "INSTANTIATION_OPTION_REQUIRED", message: "options.client is required"});
      var names = Object.keys(options.fields || {});
      var values = {};
      window.addEventListener("message", function (event) {
        var d = event.data;
        if (event.origin === FRAMES && d && d.fakeField && !d.loaded) values[d.field] = d.value;
      });
      var frames = names.map(function (n) {
        var el = document.querySelector(options.fields[n].container);
        if (!el) return Promise.reject({code: "HOSTED_FIELDS_INVALID_FIELD_SELECTOR", message: n});
        var frame = document.createElement("iframe");
        frame.title = "Secure Credit Card Frame - " + n;
        frame.src = FRAMES + "/web/3.136.0/html/hosted-fields-frame.html#" + n;
        return new Promise(function (resolve) { frame.onload = resolve; el.appendChild(frame); });
      });
      return Promise.all(frames).then(function () {
        return {
          tokenize: function () {
            var empty = names.filter(function (n) { return !values[n]; });
            if (empty.length === names.length) {
              return Promise.reject({name: "BraintreeError", code: "HOSTED_FIELDS_FIELDS_EMPTY",
                message: "All fields are empty. Cannot tokenize empty card fields."});
            }
            var bad = names.filter(function (n) { return !valid(n, values[n]); });
            if (bad.length) {
              return Promise.reject({name: "BraintreeError", code: "HOSTED_FIELDS_FIELDS_INVALID",
                message: "Some payment input fields are invalid. Cannot tokenize invalid card fields.",
                details: {invalidFieldKeys: bad}});
            }
            var number = values.number.replace(/\s/g, "");
            return fetch("https://payments.sandbox.braintree-api.com/graphql", {
              method: "POST",
              headers: {"Content-Type": "application/json", "Authorization": "Bearer " + options.client.authorization,
                        "Braintree-Version": "2018-05-10"},
              body: JSON.stringify({query: "mutation TokenizeCreditCard($input: TokenizeCreditCardInput!) { tokenizeCreditCard(input: $input) { token creditCard { last4 brandCode } } }",
                                    variables: {input: {creditCard: {number: number, expirationDate: values.expirationDate, cvv: values.cvv}}}})
            }).then(function (r) { return r.json(); }).then(function (body) {
              if (body.errors) throw {name: "BraintreeError", code: "HOSTED_FIELDS_FAILED_TOKENIZATION", message: body.errors[0].message};
              var t = body.data.tokenizeCreditCard;
              return {nonce: t.token, type: "CreditCard", details: {lastFour: t.creditCard.last4, cardType: t.creditCard.brandCode}};
            });
          }
        };
      });
    }
  };
})();
