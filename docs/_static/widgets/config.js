// Where the widgets' modules are: this folder of the site, never a CDN, so the site works offline and from
// file://. Loaded after require.js and before html-manager's embed-amd.js (docs/conf.py: nb_ipywidgets_js);
// docs/_ext/book_assets.py puts anywidget's front end and html-manager's files beside it.
(function () {
  var script = document.currentScript;
  var here = script.src.slice(0, script.src.lastIndexOf("/") + 1);
  window.__jupyter_widgets_assets_path__ = here + "html-manager/";
  script.setAttribute("data-jupyter-widgets-cdn", here);  // html-manager's fallback for a module: here too
  window.requirejs.config({paths: {anywidget: here + "anywidget/index"}});

  // html-manager 1.0 builds its CSS before it reads the assets path above, so its Font Awesome files (the
  // icons of a Play widget) are looked for beside the page: point each style it adds at this folder, before
  // the browser lays out a widget (a MutationObserver runs before the next rendering).
  var font = /url\((?:[^)]*\/)?([0-9a-f]{20}\.(?:woff2|woff|ttf|eot|svg))([?#][^)]*)?\)/g;
  new MutationObserver(function (mutations) {
    mutations.forEach(function (mutation) {
      mutation.addedNodes.forEach(function (node) {
        if (node.nodeName === "STYLE" && font.test(node.textContent)) {
          node.textContent = node.textContent.replace(font, "url(" + here + "html-manager/$1$2)");
        }
        font.lastIndex = 0;
      });
    });
  }).observe(document.head, {childList: true});
})();
