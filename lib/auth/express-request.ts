import type { AuthInfo } from '../protocol/types.js';

// Express's Request gets `auth`, set by requireBearerAuth (or your own auth middleware) and read by mcpMiddleware,
// so apps read `req.auth` without a cast. Augmenting the global `Express.Request` (which Express's own Request
// extends) needs no import of Express's types: it is harmless where they are not installed.
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** What the access token grants, set by `requireBearerAuth` (mcp-express). */
      auth?: AuthInfo | undefined;
    }
  }
}
