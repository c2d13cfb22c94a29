# guest-tasks.py: gdb script that lists a stopped guest's tasks with the
# kernel text addresses found on each one's stack (a "guess" unwind: the
# guest kernels have no debug info, build time).  scripts/boot.sh runs it
# through QEMU's gdbstub on a guest that hangs before ##GUEST-UP:
#
#   gdb -q -batch vmlinux -ex 'target remote :PORT' -x scripts/guest-tasks.py
#
# The task_struct offsets come from the vmlinux and the guest's memory, not
# from a header: comm is where init_task holds "swapper", the task list is
# the one list_head in init_task whose chain returns to it through tasks
# with a printable comm, the saved stack pointer is the slot
# __switch_to_asm stores %rsp in; __state follows the 24-byte thread_info.
import re
import gdb

inf = gdb.selected_inferior()


def rd(addr, n):
    if addr < 0 or addr + n > 1 << 64:
        raise gdb.MemoryError('address out of range')
    return bytes(inf.read_memory(addr, n))


def u64(addr):
    return int.from_bytes(rd(addr, 8), 'little')


def u32(addr):
    return int.from_bytes(rd(addr, 4), 'little')


def addr_of(sym):
    return int(gdb.parse_and_eval('(unsigned long)&%s' % sym))


init = addr_of('init_task')
comm_off = rd(init, 0x4000).find(b'swapper')
sw = gdb.execute('x/8i __switch_to_asm', to_string=True)
m = re.search(r'mov\s+%rsp,(0x[0-9a-f]+)\(%rdi\)', sw)
sp_off = int(m.group(1), 16) if m else None
STATE = 0x18


def comm(t):
    try:
        c = rd(t + comm_off, 16).split(b'\0')[0].decode('ascii')
    except (gdb.MemoryError, UnicodeDecodeError):
        return None
    return c if c and c.isprintable() else None


def find_tasks_off():
    for o in range(0, comm_off, 8):
        v = u64(init + o)
        if v < 0xff00000000000000 or v == init + o or not comm(v - o):
            continue
        cur = v
        for _ in range(100000):
            try:
                cur = u64(cur)
            except gdb.MemoryError:
                break
            if cur == init + o:
                return o
            if not comm(cur - o):
                break
    return None


tasks_off = find_tasks_off()
print('guest-tasks: comm +0x%x, tasks +0x%s, thread.sp +0x%s' %
      (comm_off, '%x' % tasks_off if tasks_off is not None else '?',
       '%x' % sp_off if sp_off is not None else '?'))
for cpu in gdb.selected_inferior().threads():
    cpu.switch()
    pc = int(gdb.parse_and_eval('$pc'))
    print('CPU %d: pc %s' % (cpu.num - 1,
          gdb.execute('info symbol 0x%x' % pc, to_string=True).strip()))
if tasks_off is None or sp_off is None or comm_off < 0:
    raise SystemExit('guest-tasks: task_struct layout not found')
stext, etext = addr_of('_stext'), addr_of('_etext')
t, n = init, 0
while True:
    st = u32(t + STATE)
    sp = u64(t + sp_off)
    # up to 2 KiB from the saved stack pointer, a page at a time: the
    # stack's top may be closer (then the guard page faults the read)
    words, stack, a = [], b'', sp
    while len(stack) < 2048:
        n = min(4096 - a % 4096, 2048 - len(stack))
        try:
            stack += rd(a, n)
        except gdb.MemoryError:
            break
        a += n
    for i in range(0, len(stack) - 7, 8):
        w = int.from_bytes(stack[i:i + 8], 'little')
        if stext <= w < etext:
            s = gdb.execute('info symbol 0x%x' % w, to_string=True)
            if not s.startswith('No symbol'):
                words.append(s.split(' in section')[0].strip())
    print('task %#x %-16s state %#x: %s' % (t, comm(t), st,
          ' < '.join(words[:24])))
    t = u64(t + tasks_off) - tasks_off
    n += 1
    if t == init or n > 2000:
        break
