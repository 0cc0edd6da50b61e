/*
 * TEST FAKE of CommerceHub's Secure Data Capture iFrame v2 SDK (Fiserv/Commerce-Hub docs,
 * "iFrame v2 Integration Guide" and "iFrame v2 Methods"), served by playwright in place of
 * https://commercehub-secure-data-capture.fiservapps.com/3.1.7/saq-a.js. The surface payhub's
 * driver uses: window.fiserv.commercehub.createPaymentForm({data: {environment, fields:
 * {<name>: {parentElementId}}}, hooks}) -> Promise<form>; form.submit({apiKey, accessToken,
 * createToken, publicKey, keyId, merchantId, terminalId}) -> Promise (rejects with {message}).
 * Fields are iframes on the SDK's CDN (frame-src); submit posts the card with the access token
 * to a stand-in path on the CERT API host (connect-src).
 */
(function () {
  "use strict";
  var CDN = "https://commercehub-secure-data-capture.fiservapps.com";
  var values = {};
  window.addEventListener("message", function (event) {
    var d = event.data;
    if (event.origin === CDN && d && d.fakeField && !d.loaded) values[d.field] = d.value;
  });
  window.fiserv = {commercehub: {createPaymentForm: function (options) {
    var data = options && options.data;
    if (!data || (data.environment !== "CERT" && data.environment !== "PROD")) return Promise.reject(new Error("environment is required"));
    Object.keys(data.fields || {}).forEach(function (name) {
      var el = document.getElementById(data.fields[name].parentElementId);
      if (!el) throw new Error("CommerceHub: no element for " + name);
      var frame = document.createElement("iframe");
      frame.title = name;
      frame.src = CDN + "/3.1.7/field.html#" + name;
      el.appendChild(frame);
    });
    var api = data.environment === "CERT" ? "https://connect-cert.fiservapps.com" : "https://prod.api.fiservapps.com";
    return Promise.resolve({
      submit: function (config) {
        var number = (values.cardNumber || "").replace(/\s/g, "");
        if (!/^\d{13,19}$/.test(number)) return Promise.reject({message: "Enter a valid card number."});
        return fetch(api + "/ch/fake-sdc-submit", {
          method: "POST", headers: {"Content-Type": "application/json"},
          body: JSON.stringify({apiKey: config.apiKey, accessToken: config.accessToken, keyId: config.keyId,
                                merchantId: config.merchantId, terminalId: config.terminalId, number: number})
        }).then(function (r) {
          return r.json().then(function (body) { if (!r.ok) throw {message: body.message}; return body; });
        });
      }
    });
  }}};
})();
