// Boots Swagger UI from our own copy (static/vendor), never a CDN.
const script = document.getElementById("api-docs-script");
window.ui = SwaggerUIBundle({ url: script.dataset.schemaUrl, dom_id: "#swagger-ui", deepLinking: true });
