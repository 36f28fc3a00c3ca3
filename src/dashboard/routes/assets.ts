/** The dashboard's static files: one stylesheet, one script, the icon (no CDN). */
import type { FastifyInstance } from 'fastify'
import { CSS, FAVICON_SVG, JS } from '../assets.ts'

export function registerAssetRoutes(app: FastifyInstance): void {
  app.get('/assets/app.css', async (_req, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(CSS),
  )
  app.get('/assets/favicon.svg', async (_req, reply) =>
    reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(FAVICON_SVG),
  )
  app.get('/assets/app.js', async (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(JS),
  )
}
