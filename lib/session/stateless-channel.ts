import { isClientResultFor } from '../protocol/client-requests.js';
import { clientCapabilityFor } from '../protocol/methods.js';
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
    /** Sends a notification on the response; a promise when the reader is behind (settles when there is room). */
    private readonly emit: (notification: JsonRpcNotification) => Promise<void> | void,
    /** Answers by key: earlier rounds' (from requestState) merged with this round's inputResponses. */
    readonly answers: Record<string, unknown>,
    readonly requestState: unknown,
  ) {}

  notify(notification: JsonRpcNotification): Promise<void> | void {
    return this.emit(notification);
  }

  request(method: string, params: Record<string, unknown>, options: OutgoingRequestOptions): Promise<Record<string, unknown>> {
    const prefix = clientCapabilityFor(method) ?? method.replace(/[^A-Za-z0-9]+/g, '_');
    const key = options.key ?? `${prefix}-${(this.counters[prefix] = (this.counters[prefix] ?? 0) + 1)}`;
    const answer = Object.hasOwn(this.answers, key) ? this.answers[key] : undefined;
    // A malformed answer counts as no answer: the client is asked again rather than the handler fed garbage.
    if (isClientResultFor(method, answer)) return Promise.resolve(answer);
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
