/*
 * TEST FAKE of Authorize.Net's AcceptUI.js v3 (the hosted lightbox of Accept.js,
 * https://developer.authorize.net/api/reference/features/acceptjs.html), served in place of
 * https://jstest.authorize.net/v3/AcceptUI.js. As the real script does, at load it binds to the
 * first button with class "AcceptUI" and reads data-apiLoginID, data-clientKey and
 * data-responseHandler; a click shows #AcceptUIContainer (class "show") holding the acceptMain
 * frame on the SDK's host (frame-src). The frame posts {verifyOrigin: "AcceptMain", type,
 * pktData} to the page: "RESPONSE" calls the named response handler with pktData, then hides the
 * lightbox; "CLOSE_IFRAME" (the payer closed it) only hides it: AcceptUI has no cancel callback.
 */
(function () {
  "use strict";
  var HOST = "https://jstest.authorize.net";
  function start() {
    var button = document.getElementsByClassName("AcceptUI")[0];
    if (!button) return;
    var handler = button.getAttribute("data-responseHandler");
    var login = button.getAttribute("data-apiLoginID"), key = button.getAttribute("data-clientKey");
    var box = document.createElement("div");
    box.id = "AcceptUIContainer";
    var frame = document.createElement("iframe");
    frame.title = "Accept UI payment form";
    box.appendChild(frame);
    document.body.appendChild(box);
    function hide() { box.className = ""; frame.removeAttribute("src"); }
    button.addEventListener("click", function (e) {
      e.preventDefault();
      box.className = "show";
      frame.src = HOST + "/v3/acceptMain/acceptMain.html#" + encodeURIComponent(JSON.stringify({login: login, key: key}));
    });
    window.addEventListener("message", function (event) {
      var d = event.data;
      if (event.origin !== HOST || !d || d.verifyOrigin !== "AcceptMain") return;
      if (d.type === "RESPONSE") { window[handler](d.pktData); hide(); }
      else if (d.type === "CLOSE_IFRAME") hide();
    });
  }
  if (document.readyState === "complete") start();
  else window.addEventListener("load", start);
})();
