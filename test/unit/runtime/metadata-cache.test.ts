import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  PARTIAL_METADATA_ACCEPT,
  PARTIAL_METADATA_LIST_ACCEPT,
  ResourceClient,
} from '../../../src/client/resource-client.ts';
import type { Transport, TransportRequest } from '../../../src/client/transport.ts';
import { builtinKinds } from '../../../src/runtime/builtin-kinds.ts';
import { InformerCache } from '../../../src/runtime/cache.ts';
import { FakeApiServer } from '../../../src/testing/fake-api-server.ts';
import { quietLogger as quiet } from '../../helpers/runtime-fakes.ts';

/**
 * The cache side of metadata-only watches: a kind's metadata-only informers send client-go's
 * metadata Accept headers (the list's PartialObjectMetadataList, the watch's PartialObjectMetadata)
 * and are kept apart from its full informers. (The fake API server ignores Accept; what the real one
 * answers is test/integration/runtime/metadata-only.test.ts.)
 */
describe('InformerCache metadata-only informers', () => {
  it('(list requests) list and watch with the metadata Accept headers; full informers with JSON; separate stores', async () => {
    const server = new FakeApiServer().register(builtinKinds.Secret);
    const base = server.transport();
    const seen: { accept: string | undefined; watch: boolean }[] = [];
    const record = (req: TransportRequest): void =>
      void seen.push({ accept: req.accept, watch: req.query?.watch === true });
    const transport = {
      request: (req: TransportRequest) => (record(req), base.request(req)),
      stream: (req: TransportRequest, onLine: (l: string) => void, onOpen?: () => void) => (
        record(req),
        base.stream(req, onLine, onOpen)
      ),
      close: () => base.close(),
    } as unknown as Transport;
    await new ResourceClient(base, builtinKinds.Secret).create({
      metadata: { name: 's', namespace: 'ns' },
      stringData: { k: 'v' },
    });
    const cache = new InformerCache(transport, { logger: quiet, watchList: false });
    cache.metadataInformersFor(builtinKinds.Secret);
    assert.equal(cache.isCached(builtinKinds.Secret), false, 'a metadata informer is not the full cache');
    cache.start();
    await cache.waitForSync();
    const lists = seen.filter((s) => !s.watch).map((s) => s.accept);
    assert.deepEqual(lists, [PARTIAL_METADATA_LIST_ACCEPT]);
    await new Promise<void>((resolve) => {
      const poll = (): void => (seen.some((s) => s.watch) ? resolve() : void setImmediate(poll));
      poll();
    });
    assert.deepEqual(
      seen.filter((s) => s.watch).map((s) => s.accept),
      [PARTIAL_METADATA_ACCEPT],
    );
    assert.equal(cache.getMetadata(builtinKinds.Secret, 'ns', 's')?.metadata?.name, 's');
    // A full informer of the same kind: its own list (plain JSON) and store.
    seen.length = 0;
    cache.informersFor(builtinKinds.Secret);
    await cache.waitForSync();
    assert.deepEqual(
      seen.filter((s) => !s.watch).map((s) => s.accept),
      [undefined],
    );
    assert.equal(cache.isCached(builtinKinds.Secret), true);
    assert.equal(cache.list(builtinKinds.Secret).length, 1);
    assert.equal(cache.listMetadata(builtinKinds.Secret).length, 1);
    assert.notEqual(
      cache.get(builtinKinds.Secret, 'ns', 's'),
      cache.getMetadata(builtinKinds.Secret, 'ns', 's'),
      'two stores',
    );
    await cache.stop();
  });
});
