/*
 * What every payhub hosted-fields driver shares, loaded before the driver:
 * PayHubFields.util.load(urls) loads the vendor's scripts in order; group(el, id, label, extraClass)
 * adds a labelled box for a vendor's iframe field; LOAD_FAILED is the message when they fail.
 */
(function () {
  "use strict";
  var LOAD_FAILED = "The payment form could not be loaded. Check your connection and reload the page.";
  function load(urls) {
    return urls.reduce(function (done, url) {
      return done.then(function () {
        return new Promise(function (resolve, reject) {
          var s = document.createElement("script");
          s.src = url;
          s.onload = resolve;
          s.onerror = function () { reject(new Error(LOAD_FAILED)); };
          document.head.appendChild(s);
        });
      });
    }, Promise.resolve());
  }
  function group(el, id, label, extraClass) {
    var title = document.createElement("p");
    title.className = "field-label";
    title.id = id + "-label";
    title.textContent = label;
    var box = document.createElement("div");
    box.className = extraClass ? "vendor-field " + extraClass : "vendor-field";
    box.id = id;
    box.setAttribute("role", "group");
    box.setAttribute("aria-labelledby", title.id);
    el.appendChild(title);
    el.appendChild(box);
    return box;
  }
  window.PayHubFields = window.PayHubFields || {};
  window.PayHubFields.util = {LOAD_FAILED: LOAD_FAILED, load: load, group: group};
})();
