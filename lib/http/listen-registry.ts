/** Open listen streams of one middleware, so that `close()` can end them gracefully. */
export class ListenRegistry {
  readonly open = new Set<() => void>();
  constructor(
    readonly max: number,
    /** Most URIs in one listen's `resourceSubscriptions` (option maxListenFilterUris). */
    readonly maxFilterUris: number,
    /** Largest total length of those URIs (option maxListenFilterBytes). */
    readonly maxFilterBytes: number,
  ) {}

  closeAll(): void {
    for (const end of [...this.open]) end();
  }
}
