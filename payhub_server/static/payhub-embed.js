/*
 * payhub embed helper, for the merchant's own website (the page that frames the pay page).
 *
 *   <iframe src="https://pay.example.com/embed/TOKEN" title="Pay invoice" style="width:100%;border:0"></iframe>
 *   <script src="https://pay.example.com/static/payhub-embed.js" async></script>
 *
 * It listens for the pay page's messages, accepts only those from the payhub origin the script
 * was loaded from (event.origin) and from one of the page's payhub frames (event.source), and
 * sets that frame's height on "resize". Every accepted message is also re-dispatched on the
 * iframe element as a "payhub:message" CustomEvent (detail = the message), so the host page
 * can react to "paid" — and then confirm the payment server-side by reading the invoice
 * (GET /api/merchant-accounts/{ref}/invoices/{invoiceNumber}): a message is not proof.
 */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !script.src) return;
  var payhubOrigin = new URL(script.src).origin;
  if (window.__payhubEmbedListening === payhubOrigin) return;  // included twice: listen once
  window.__payhubEmbedListening = payhubOrigin;

  function frameFor(source) {
    var frames = document.getElementsByTagName("iframe");
    for (var i = 0; i < frames.length; i++) {
      if (frames[i].contentWindow === source) return frames[i];
    }
    return null;
  }

  window.addEventListener("message", function (event) {
    if (event.origin !== payhubOrigin) return;
    var data = event.data;
    if (!data || typeof data !== "object" || data.source !== "payhub") return;
    var frame = frameFor(event.source);
    if (!frame) return;
    if (data.type === "resize" && typeof data.height === "number" && data.height > 0) {
      frame.style.height = Math.ceil(data.height) + "px";
    }
    var detail = {};
    for (var k in data) if (Object.prototype.hasOwnProperty.call(data, k)) detail[k] = data[k];
    frame.dispatchEvent(new CustomEvent("payhub:message", {detail: detail}));
  });
})();
