import express, { type Router } from 'express';
import { renderDocsPage } from './docs-page';
import type { JsonObject } from './openapi';

/** `/openapi.json` (the bundled document) and `/docs` (an HTML rendering of it). Both are static per process. */
export function docsRouter(document: JsonObject): Router {
  const router = express.Router();
  const json = JSON.stringify(document);
  const html = renderDocsPage(document);
  router.get('/openapi.json', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300');
    res.type('application/json').send(json);
  });
  router.get('/docs', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300');
    res.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    res.type('html').send(html);
  });
  return router;
}
