/*
 * TEST FAKE of Converge's Lightbox script (PayWithConverge.js, Converge Hosted Payments), served
 * by playwright in place of https://api.demo.convergepay.com/hosted-payments/PayWithConverge.js.
 * The surface payhub's driver uses: PayWithConverge.open({ssl_txn_auth_token}, {onApproval,
 * onDeclined, onCancelled, onError}) overlays the lightbox (an iframe on the same host,
 * frame-src), which reports back by window message; the fake requires jQuery, as the real
 * script's integrations load it first.
 */
(function () {
  "use strict";
  var HOST = "https://api.demo.convergepay.com";
  if (typeof window.jQuery !== "function") throw new Error("PayWithConverge: jQuery is required");
  window.PayWithConverge = {
    open: function (fields, callbacks) {
      if (!fields || !fields.ssl_txn_auth_token) throw new Error("PayWithConverge: ssl_txn_auth_token is required");
      var frame = document.createElement("iframe");
      frame.id = "converge-lightbox";
      frame.title = "Converge payment";
      frame.src = HOST + "/hosted-payments/lightbox.html#" + fields.ssl_txn_auth_token;
      frame.style.cssText = "position:fixed;inset:10%;width:80%;height:60%;background:#fff;z-index:1000;border:2px solid #333";
      document.body.appendChild(frame);
      function listen(event) {
        var d = event.data;
        if (event.origin !== HOST || !d || !d.fakeConverge) return;
        window.removeEventListener("message", listen);
        frame.remove();
        var handler = {approval: callbacks.onApproval, declined: callbacks.onDeclined,
                       cancelled: callbacks.onCancelled, error: callbacks.onError}[d.kind];
        if (handler) handler(d.response);
      }
      window.addEventListener("message", listen);
    }
  };
})();
