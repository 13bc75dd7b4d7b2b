import { CAPABILITY_FOR_CLIENT_REQUEST } from '../protocol/client-requests.js';
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';
import { InputRequiredSignal, type InputRequest } from '../server/input-required.js';
import type { OutgoingRequestOptions, RequestChannel } from '../server/request-channel.js';


/**
 * The channel of a stateless request. Notifications go to the response stream. A request to the client cannot
 * travel on the stream (2026-07-28 forbids it), so it is answered from the retry's `inputResponses` (and answers
 * of earlier rounds carried in `requestState`), or else collected and the handler ends with `input_required`.
 */
export class StatelessChannel implements RequestChannel {
  /** Requests the handler asked for that no round has answered yet. */
  readonly missing: Record<string, InputRequest> = {};
  private readonly counters: Record<string, number> = {};

  constructor(
    private readonly emit: (notification: JsonRpcNotification) => void,
    /** Answers by key: earlier rounds' (from requestState) merged with this round's inputResponses. */
    readonly answers: Record<string, unknown>,
    readonly requestState: unknown,
  ) {}

  notify(notification: JsonRpcNotification): void {
    this.emit(notification);
  }

  request(method: string, params: Record<string, unknown>, options: OutgoingRequestOptions): Promise<Record<string, unknown>> {
    const prefix = CAPABILITY_FOR_CLIENT_REQUEST[method] ?? method.replace(/[^A-Za-z0-9]+/g, '_');
    const key = options.key ?? `${prefix}-${(this.counters[prefix] = (this.counters[prefix] ?? 0) + 1)}`;
    const answer = Object.prototype.hasOwnProperty.call(this.answers, key) ? this.answers[key] : undefined;
    // A malformed answer counts as no answer: the client is asked again rather than the handler fed garbage.
    if (isAnswerTo(method, answer)) return Promise.resolve(answer);
    this.missing[key] = { method, params };
    return Promise.reject(new InputRequiredSignal(this.missing));
  }

  closeStream(): void {
    // Stateless streams cannot be resumed (2026-07-28 removed resumability): nothing to close for polling.
  }

  closeStandaloneStream(): void {
    // There is no standalone stream without a session.
  }
}

/** Whether `value` has the shape of a client's result to `method` (the InputResponse union of 2026-07-28). */
function isAnswerTo(method: string, value: unknown): value is Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const answer = value as Record<string, unknown>;
  switch (method) {
    case 'elicitation/create':
      return answer.action === 'accept' || answer.action === 'decline' || answer.action === 'cancel';
    case 'sampling/createMessage':
      return typeof answer.role === 'string' && typeof answer.model === 'string' && typeof answer.content === 'object' && answer.content !== null;
    case 'roots/list':
      return Array.isArray(answer.roots);
    default:
      return true;
  }
}
