import type { ClientRequestCapability } from '../protocol/client-requests.js';
import { ErrorCode } from '../protocol/error-codes.js';
import type { JsonRpcRequest, RequestId } from '../protocol/jsonrpc.js';
import { McpError } from '../protocol/mcp-error.js';
import {
  loggingSeverity,
  type AuthInfo,
  type ClientCapabilities,
  type CreateMessageParams,
  type CreateMessageResult,
  type ElicitParams,
  type ElicitResult,
  type Implementation,
  type ListRootsResult,
  type LoggingLevel,
} from '../protocol/types.js';
import type { ClientView } from './client-view.js';
import { InputRequiredSignal, type InputRequest } from './input-required.js';
import type { OutgoingRequestOptions, RequestChannel } from './request-channel.js';

/** What progress, log and notify return when there is nothing to wait for. */
const SENT: Promise<void> = Promise.resolve();

/**
 * What every handler receives: cancellation, progress, logging, server→client requests and who is asking.
 * One is made per request; its methods live on the prototype so that making one is cheap.
 */
export class RequestContext {
  readonly requestId: RequestId;
  readonly method: string;
  /** The request's `params._meta`. */
  readonly meta: Record<string, unknown> | undefined;
  /** Auth info the app's middleware put on `req.auth`. */
  readonly authInfo: AuthInfo | undefined;
  /** The Express request this MCP request arrived on, for headers and app state. */
  readonly httpRequest: unknown;
  /** Who is asking, as the middleware's `principalOf` says (`req.auth.clientId` by default); undefined when anonymous. */
  readonly principal: string | undefined;
  /** @internal */
  readonly client: ClientView;
  private readonly channel: RequestChannel;
  private controller: AbortController | undefined;
  private abortReason: unknown;
  private aborted = false;

  /**
   * @internal Made by the session layer, one per request. Its arguments are objects the request already has (no
   * object literal per request: V8 may allocate a literal's objects in the old generation once they often outlive
   * a scavenge, and this one points at the whole request).
   */
  constructor(
    request: Pick<JsonRpcRequest, 'id' | 'method' | 'params'>,
    client: ClientView,
    channel: RequestChannel,
    info: Partial<Pick<RequestContext, 'authInfo' | 'httpRequest' | 'principal'>>,
  ) {
    this.requestId = request.id;
    this.method = request.method;
    this.meta = request.params?._meta as Record<string, unknown> | undefined;
    this.client = client;
    this.channel = channel;
    this.authInfo = info.authInfo;
    this.httpRequest = info.httpRequest;
    this.principal = info.principal;
  }

  /** Fires when the client cancels (`notifications/cancelled`), the session ends, or (2026-07-28) the client disconnects. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  get sessionId(): string | undefined {
    return this.client.sessionId;
  }

  get protocolVersion(): string {
    return this.client.protocolVersion;
  }

  get clientCapabilities(): ClientCapabilities {
    return this.client.clientCapabilities;
  }

  get clientInfo(): Implementation | undefined {
    return this.client.clientInfo;
  }

  /** @internal Called by the session layer. */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.abortReason = reason;
    this.controller?.abort(reason);
  }

  get isAborted(): boolean {
    return this.aborted;
  }

  /**
   * Sends `notifications/progress` when the request carried a progress token; otherwise does nothing. The
   * promise settles at once, or, when the client reads slower than the handler writes, once the stream has room
   * again: a handler that emits a lot should `await` it (nothing is lost if it does not; a reader that falls
   * `maxBufferedBytesPerStream` behind is disconnected to resume, or the request is cancelled).
   */
  progress(progress: number, total?: number, message?: string): Promise<void> {
    const progressToken = this.meta?.progressToken;
    // The spec allows string or integer tokens only; anything else is ignored rather than echoed back.
    if ((typeof progressToken !== 'string' && !Number.isInteger(progressToken)) || this.aborted) return SENT;
    const params: Record<string, unknown> = { progressToken, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    return this.channel.notify({ jsonrpc: '2.0', method: 'notifications/progress', params }) ?? SENT;
  }

  /** Sends `notifications/message` if `level` is at or above the client's chosen level. Await it as `progress`. */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    if (this.aborted) return SENT;
    const threshold = this.client.logLevel;
    if (threshold === undefined) {
      if (this.client.logOnlyWhenLevelSet) return SENT;
    } else if (loggingSeverity(level) < loggingSeverity(threshold)) {
      return SENT;
    }
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    return this.channel.notify({ jsonrpc: '2.0', method: 'notifications/message', params }) ?? SENT;
  }

  /** Sends any notification related to this request. Await it as `progress`. */
  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    if (this.aborted) return SENT;
    return this.channel.notify(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params }) ?? SENT;
  }

  /** Asks the user for input through the client (`elicitation/create`). */
  elicit(params: ElicitParams, options: OutgoingRequestOptions = {}): Promise<ElicitResult> {
    this.requireCapability('elicitation');
    return this.request('elicitation/create', params, options) as Promise<ElicitResult>;
  }

  /** Asks the client's model for a completion (`sampling/createMessage`). */
  sample(params: CreateMessageParams, options: OutgoingRequestOptions = {}): Promise<CreateMessageResult> {
    this.requireCapability('sampling');
    return this.request('sampling/createMessage', params, options) as Promise<CreateMessageResult>;
  }

  /** Asks the client for its roots (`roots/list`). */
  listRoots(options: OutgoingRequestOptions = {}): Promise<ListRootsResult> {
    this.requireCapability('roots');
    return this.request('roots/list', {}, options) as Promise<ListRootsResult>;
  }

  /** Sends any request to the client and resolves with its result. */
  request(method: string, params: Record<string, unknown>, options: OutgoingRequestOptions = {}): Promise<Record<string, unknown>> {
    if (this.aborted) return Promise.reject(new McpError(ErrorCode.ServerError, 'The request was cancelled'));
    return this.channel.request(method, params, { ...options, signal: options.signal ?? this.signal });
  }

  /**
   * Closes the connection carrying this request's stream (SEP-1699 polling). The request goes on; the client
   * reconnects after `retryMs` with `Last-Event-ID` and receives what it missed.
   */
  closeSSEStream(retryMs?: number): void {
    this.channel.closeStream(retryMs);
  }

  /**
   * The handler's own state from the previous round of a multi-round-trip request (what it passed to
   * `inputRequired`), verified; undefined on a first round or when there is none.
   */
  get requestState(): unknown {
    return this.channel.requestState;
  }

  /**
   * Ends the handler and asks the client for input first (2026-07-28 `input_required`): the client answers the
   * requests and retries, and the handler runs again with `state` in `ctx.requestState`. Most handlers never need
   * this: `elicit`, `sample` and `listRoots` do it for them.
   */
  inputRequired(inputRequests: Record<string, InputRequest>, state?: unknown): never {
    throw new InputRequiredSignal(inputRequests, state);
  }

  /** Closes the connection of the session's standalone GET stream; the client reconnects and resumes. */
  closeStandaloneSSEStream(retryMs?: number): void {
    this.channel.closeStandaloneStream(retryMs);
  }

  private requireCapability(capability: ClientRequestCapability): void {
    const unavailable = this.client.serverRequestsUnavailable;
    if (unavailable !== undefined) throw new McpError(ErrorCode.InvalidRequest, unavailable);
    if (this.client.clientCapabilities?.[capability] !== undefined) return;
    throw missingCapabilityError(capability);
  }
}

/**
 * The client did not declare a capability a handler needs: a client error, -32021 with
 * `data.requiredCapabilities` in every era (2026-07-28 names the code; for 2025-era sessions it is an
 * implementation-defined server error code with the same meaning), never a -32603 server fault.
 */
export function missingCapabilityError(capability: string): McpError {
  return new McpError(
    ErrorCode.MissingClientCapability,
    `The client did not declare the "${capability}" capability, so the server cannot send it ${capability} requests; declare it in the client's capabilities.`,
    { requiredCapabilities: { [capability]: {} } },
  );
}
