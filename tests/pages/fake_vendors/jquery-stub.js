/* TEST STUB standing in for jQuery (served on ajax.googleapis.com): the fake lightbox script
 * only checks that it was loaded first, as the real one's integrations do. */
window.jQuery = window.$ = function () { return {}; };
