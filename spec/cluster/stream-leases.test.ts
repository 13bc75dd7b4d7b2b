import { InMemoryStreamLeases } from '../../lib/index.js';
import { RedisStreamLeases } from '../../lib/redis/index.js';
import { describeStreamLeasesContract } from '../../lib/testing/index.js';
import { describeWithRedis } from '../helpers/redis.js';

describeStreamLeasesContract('InMemoryStreamLeases', () => new InMemoryStreamLeases());

describeWithRedis('RedisStreamLeases', (redis) => {
  describeStreamLeasesContract('RedisStreamLeases', () => new RedisStreamLeases(redis.client(), { keyPrefix: redis.prefix('lease') }));
});
