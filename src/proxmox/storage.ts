import { ProxmoxInputError } from './errors';
import { type ProxmoxApi } from './api';
import { nodePath } from './node-name';
import { storageContentSchema } from './schemas';

/** Storage content through the API (e.g. whether an ISO or an import image exists), never over SSH. */
export type ContentType = 'iso' | 'images' | 'import' | 'vztmpl' | 'backup' | 'rootdir' | 'snippets';

export interface StorageItem {
  volid: string;
  format?: string;
  size?: number;
  content?: string;
  vmid?: number;
}

export class StorageApi {
  constructor(private readonly api: ProxmoxApi) {}

  async content(
    node: string,
    storage: string,
    filter: { content?: ContentType; vmid?: number } = {},
  ): Promise<StorageItem[]> {
    if (!/^[a-z][a-z0-9\-_.]*[a-z0-9]$/i.test(storage)) throw new ProxmoxInputError(`not a storage id: "${storage}"`);
    return this.api.call(
      'GET',
      `${nodePath(node)}/storage/${storage}/content`,
      { content: filter.content, vmid: filter.vmid },
      storageContentSchema,
    );
  }

  /** The item for a volume id (`local:iso/debian.iso`) as the node sees it, or undefined. */
  async find(node: string, volid: string, content?: ContentType): Promise<StorageItem | undefined> {
    const storage = /^([^:]+):/.exec(volid)?.[1];
    if (!storage) throw new ProxmoxInputError(`not a volume id (storage:path): "${volid}"`);
    return (await this.content(node, storage, { content })).find((item) => item.volid === volid);
  }
}
