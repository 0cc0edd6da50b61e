/*
 * payhub hosted-fields driver for PayTrace: Protect.js
 * (https://developer.north.com/b2b/api-spec/production/Protect.js).
 *
 * config: {sdk: [".../js/protect.min.js"], clientKey: "..."}: the client key is made
 * server-side for this page view by payhub's PayTrace adapter (payment_fields/token/create).
 * PTPayment.setup({authorization: {clientKey}}) draws PayTrace's hosted fields in the element
 * with id "pt_hpf_form" (Protect.js's fixed container). tokenize() runs
 * PTPayment.validate(callback) (an array of {description} for each bad field) and then
 * PTPayment.process(), which resolves {message: {hpf_token, enc_key}}; the token payhub's
 * PayTrace adapter charges is "<hpf_token>|<enc_key>".
 */
(function () {
  "use strict";
  var util = window.PayHubFields.util;
  var LOAD_FAILED = util.LOAD_FAILED;

  function describe(errors) {
    var texts = (errors || []).map(function (e) { return e && (e.description || e.message); }).filter(Boolean);
    return texts.length ? texts.join(" ") : "Check the card details.";
  }

  window.PayHubFields = window.PayHubFields || {};
  window.PayHubFields.paytrace = {
    createFields: function (el, options) {
      var config = options.config || {};
      if (options.type !== "card") {
        return {tokenize: function () { return Promise.reject(new Error("Only cards can be used here.")); }};
      }
      var box = util.group(el, "pt_hpf_form", "Card details");
      var ready = util.load(config.sdk).then(function () {
        var pt = window.PTPayment;
        if (!pt || typeof pt.setup !== "function") throw new Error(LOAD_FAILED);
        return Promise.resolve(pt.setup({
          styles: {code: {font_color: "#1a1a1a"}, cc: {font_color: "#1a1a1a"}, exp: {font_color: "#1a1a1a"}},
          authorization: {clientKey: config.clientKey}
        })).then(function () { return pt; });
      });
      ready.catch(function () { box.textContent = LOAD_FAILED; });
      return {
        tokenize: function () {
          return ready.then(function (pt) {
            return new Promise(function (resolve, reject) {
              pt.validate(function (errors) {
                if (errors && errors.length) { reject(new Error(describe(errors))); return; }
                Promise.resolve(pt.process()).then(function (r) {
                  var m = r && r.message;
                  if (m && m.hpf_token && m.enc_key) resolve({token: m.hpf_token + "|" + m.enc_key, type: "Card"});
                  else reject(new Error("Check the card details."));
                }, function (err) {
                  reject(new Error(describe(err && (err.errors || [err]))));
                });
              });
            });
          });
        }
      };
    }
  };
})();
