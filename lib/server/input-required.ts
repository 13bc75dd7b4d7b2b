/** One request the server needs the client to answer before it can finish (2026-07-28 MRTR). */
export interface InputRequest {
  method: string;
  params: Record<string, unknown>;
}

/**
 * Thrown (by the stateless request channel, or by `ctx.inputRequired`) to end the handler and answer with an
 * `input_required` result. Tool error handling lets it through (`mcpControl`).
 */
export class InputRequiredSignal extends Error {
  readonly mcpControl = true;
  constructor(
    readonly inputRequests: Record<string, InputRequest>,
    readonly state?: unknown,
  ) {
    super('input required');
    this.name = 'InputRequiredSignal';
  }
}
