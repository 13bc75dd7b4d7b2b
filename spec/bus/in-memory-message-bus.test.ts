import { InMemoryMessageBus } from '../../lib/index.js';
import { describeMessageBusContract } from '../../lib/testing/index.js';

describeMessageBusContract('InMemoryMessageBus', () => {
  const bus = new InMemoryMessageBus();
  return { a: bus, b: bus };
});

test('close() ends every subscription and refuses further use', async () => {
  const bus = new InMemoryMessageBus();
  const received: unknown[] = [];
  await bus.subscribe('c', (message) => received.push(message));
  expect(bus.channelCount).toBe(1);
  await bus.close();
  expect(bus.channelCount).toBe(0);
  await expect(bus.publish('c', 1)).rejects.toThrow(/after close/);
  expect(received).toEqual([]);
});

test('a message that is not JSON is refused at publish', async () => {
  const bus = new InMemoryMessageBus();
  await bus.subscribe('c', () => undefined);
  await expect(bus.publish('c', () => 1)).rejects.toThrow(TypeError);
});
