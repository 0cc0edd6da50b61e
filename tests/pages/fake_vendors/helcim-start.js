/*
 * TEST FAKE of HelcimPay.js (devdocs.helcim.com, "HelcimPay.js Implementation" and "Validate a
 * HelcimPay.js payment"), served by playwright in place of
 * https://secure.helcim.app/helcim-pay/services/start.js. The surface payhub's driver uses:
 * appendHelcimPayIframe(checkoutToken, allowExit) overlays the modal (an iframe on
 * secure.helcim.app, frame-src), removeHelcimPayIframe() takes it away. The modal
 * (helcim-modal.html) posts {eventName: "helcim-pay-js-<checkoutToken>", eventStatus,
 * eventMessage} to the page.
 */
(function () {
  "use strict";
  var HOST = "https://secure.helcim.app";
  window.appendHelcimPayIframe = function (checkoutToken) {
    if (!checkoutToken) throw new Error("HelcimPay.js: a checkoutToken is required");
    var frame = document.createElement("iframe");
    frame.id = "helcimPayIframe";
    frame.title = "Helcim payment";
    frame.src = HOST + "/helcim-pay/modal.html#" + checkoutToken;
    frame.style.cssText = "position:fixed;inset:10%;width:80%;height:60%;background:#fff;z-index:1000;border:2px solid #333";
    document.body.appendChild(frame);
  };
  window.removeHelcimPayIframe = function () {
    var frame = document.getElementById("helcimPayIframe");
    if (frame) frame.remove();
  };
})();
