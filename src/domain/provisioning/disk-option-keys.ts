/** Disk options ferry passes through (`scsi0: local-lvm:…,iothread=1,discard=on`). */
export const DISK_OPTION_KEYS = ['iothread', 'discard', 'ssd', 'cache', 'backup', 'replicate', 'aio'];
