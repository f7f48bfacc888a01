/* global window, document, React, ReactDOM, GraphiQL */
// The explorer page's only script (external, so a strict Content-Security-Policy holds).
// Credentials entered in the form are kept in this browser's localStorage and sent as the
// Api-Id / Api-User / Api-Token headers with every request; GraphiQL's own headers editor can
// add or override headers (e.g. Timestamp).
(function () {
  "use strict";
  var HEADER_NAMES = ["Api-Id", "Api-User", "Api-Token"];
  var STORAGE_KEY = "regapi.explorer.credentials";
  var DEFAULT_QUERY = [
    "# Enter your Api-Id, Api-User and Api-Token above, then run (Ctrl-Enter).",
    "{",
    "  projects {",
    "    groupId",
    "    name",
    "    isArchived",
    "  }",
    "}",
    "",
  ].join("\n");

  function readCredentials() {
    try {
      return JSON.parse(window.localStorage.getItem(STORAGE_KEY) || "{}") || {};
    } catch {
      return {};
    }
  }

  function credentialHeaders() {
    var stored = readCredentials();
    var headers = {};
    HEADER_NAMES.forEach(function (name) {
      if (stored[name]) headers[name] = stored[name];
    });
    return headers;
  }

  var form = document.getElementById("credentials");
  var status = document.getElementById("credentials-status");
  var stored = readCredentials();
  HEADER_NAMES.forEach(function (name) {
    form.elements[name].value = stored[name] || "";
  });
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var values = {};
    HEADER_NAMES.forEach(function (name) {
      values[name] = form.elements[name].value.trim();
    });
    window.localStorage.setItem(STORAGE_KEY, JSON.stringify(values));
    status.textContent = "Saved; sent with every request.";
  });
  document.getElementById("forget-credentials").addEventListener("click", function () {
    window.localStorage.removeItem(STORAGE_KEY);
    HEADER_NAMES.forEach(function (name) {
      form.elements[name].value = "";
    });
    status.textContent = "Forgotten.";
  });

  function fetcher(params, options) {
    var headers = Object.assign(
      { "Content-Type": "application/json", Accept: "application/json" },
      credentialHeaders(),
      (options && options.headers) || {},
    );
    return window
      .fetch("/graphql", { method: "POST", headers: headers, body: JSON.stringify(params), credentials: "omit" })
      .then(function (response) {
        return response.json();
      });
  }

  var root = ReactDOM.createRoot(document.getElementById("graphiql"));
  root.render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: DEFAULT_QUERY,
      isHeadersEditorEnabled: true,
    }),
  );
})();
