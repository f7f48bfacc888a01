/* global window, SwaggerUIBundle */
// The REST reference: Swagger UI on /openapi.json, every operation expanded so each action's
// request example is one click away. No validator badge and no other outside request.
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  docExpansion: "full",
  defaultModelsExpandDepth: 1,
  deepLinking: true,
  validatorUrl: null,
  tryItOutEnabled: false,
});
