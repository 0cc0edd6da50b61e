/*
 * TEST FAKE of PayTrace's Protect.js (https://developer.north.com/b2b/api-spec/production/Protect.js),
 * served by playwright in place of https://protect.sandbox.paytrace.com/js/protect.min.js.
 * The surface payhub's driver uses: PTPayment.setup({styles, authorization: {clientKey}})
 * draws the hosted fields in #pt_hpf_form (an iframe on the Protect host, frame-src) and
 * resolves; PTPayment.validate(callback) calls back with [] or [{responseCode, description}];
 * PTPayment.process() resolves {success: true, message: {hpf_token, enc_key}} after posting the
 * card with the client key to the Protect host (a stand-in path, connect-src), or rejects.
 */
(function () {
  "use strict";
  var HOST = "https://protect.sandbox.paytrace.com";
  var clientKey = null, number = "";
  window.addEventListener("message", function (event) {
    var d = event.data;
    if (event.origin === HOST && d && d.fakeField && !d.loaded) number = d.value.replace(/\s/g, "");
  });
  window.PTPayment = {
    setup: function (options) {
      clientKey = options && options.authorization && options.authorization.clientKey;
      if (!clientKey) return Promise.reject({reason: "clientKey is required"});
      var el = document.getElementById("pt_hpf_form");
      if (!el) return Promise.reject({reason: "#pt_hpf_form is missing"});
      var frame = document.createElement("iframe");
      frame.title = "Card details";
      frame.src = HOST + "/hpf.html#cc";
      el.appendChild(frame);
      return Promise.resolve({});
    },
    validate: function (callback) {
      var errors = /^\d{13,19}$/.test(number) ? []
        : [{responseCode: "35", description: "Please provide a valid Credit Card Number."}];
      setTimeout(function () { callback(errors); }, 0);
    },
    process: function () {
      return fetch(HOST + "/v1/hpf/process", {
        method: "POST",
        headers: {"Content-Type": "application/json"},
        body: JSON.stringify({clientKey: clientKey, cc: number})
      }).then(function (r) {
        return r.json().then(function (body) { if (!r.ok) throw body; return body; });
      });
    }
  };
})();
