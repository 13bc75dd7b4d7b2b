import type { ServerResponse } from 'node:http';
import { ErrorCode } from '../protocol/error-codes.js';
import type { RequestId } from '../protocol/jsonrpc.js';
import { sendError } from './respond.js';

/** 503 for any request after `close()`: this instance takes no new work; another one will. */
export function sendShuttingDown(res: ServerResponse, id: RequestId | null): void {
  sendError(res, 503, ErrorCode.ServerError, 'Service Unavailable: this server instance is shutting down; retry the request (another instance will serve it)', id, undefined, { 'Retry-After': '1' });
}
