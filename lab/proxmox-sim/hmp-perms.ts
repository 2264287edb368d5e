/**
 * qemu-server's HMPPerms (API2/Qemu/HMPPerms.pm): the permission each QEMU monitor command needs through
 * `POST …/monitor` — `none` (help, info), `Sys.Modify` on `/`, or root@pam only. A command not listed is
 * refused for anyone but root@pam ("non-existent or not assigned a required permission yet").
 */
export type HmpPermission = 'none' | 'Sys.Modify' | 'root';

const ROOT =
  'backup block_stream change chardev-add chardev-change chardev-remove client_migrate_info device_add device_del drive_add drive_backup drive_del drive_mirror dump-guest-memory dumpdtb gdbserver hostfwd_add hostfwd_remove logfile mce memsave migrate migrate_incoming migrate_recover nbd_server_add nbd_server_remove nbd_server_start nbd_server_stop netdev_add netdev_del nmi o object_add object_del pcie_aer_inject_error pmemsave qom-set savevm-end savevm-start screendump snapshot_blkdev watchdog_action wavcapture xen-event-inject xen-event-list';
const SYS_MODIFY =
  'i announce_self backup_cancel balloon block_job_cancel block_job_complete block_job_pause block_job_resume block_job_set_speed block_resize block_set_io_throttle boot_set calc_dirty_rate cancel_vcpu_dirty_limit chardev-send-break closefd commit cont c cpu delvm eject exit_preconfig expire_password getfd loadvm log migrate_cancel migrate_continue migrate_pause migrate_set_capability migrate_set_parameter migrate_start_postcopy mouse_button mouse_move mouse_set one-insn-per-tb print p qemu-io qom-get qom-list quit q replay_break replay_delete_break replay_seek ringbuf_read ringbuf_write savevm sendkey set_link set_password set_vcpu_dirty_limit snapshot_blkdev_internal snapshot_delete_blkdev_internal stopcapture stop s sum sync-profile system_powerdown system_reset system_wakeup trace-event x x_colo_lost_heartbeat xp';

export const HMP_COMMAND_PERMS: Readonly<Record<string, HmpPermission>> = {
  help: 'none',
  '?': 'none',
  info: 'none',
  ...Object.fromEntries(ROOT.split(' ').map((c) => [c, 'root' as const])),
  ...Object.fromEntries(SYS_MODIFY.split(' ').map((c) => [c, 'Sys.Modify' as const])),
};
