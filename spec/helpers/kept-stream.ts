/**
 * A stream as `LeaseKeeper` sees it (`LeasedStream`), recording whether its delivery is held and the `leaseNow` it
 * was given, for the keeper's unit tests.
 */
export function keptStream(streamId: string, stored: () => Promise<void> = () => Promise.resolve()) {
  return {
    streamId,
    stored,
    holding: false,
    leaseNow: undefined as (() => Promise<void>) | undefined,
    holdDelivery(leaseNow?: () => Promise<void>) {
      this.holding = true;
      this.leaseNow = leaseNow;
    },
    releaseDelivery() {
      this.holding = false;
    },
  };
}
