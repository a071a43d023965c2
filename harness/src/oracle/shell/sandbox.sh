# The sandbox's first process (pid 1 of a new pid namespace, in new mount
# and network namespaces): builds a root of its own on tmpfs, runs one
# shell line there under limits, waits for everything the line started,
# and writes what it saw to stdout (NUL-separated fields; see observe.rs).
#
# Arguments: the prepared host directory, the uid to run the line as
# (empty: stay the namespace's root, in a user namespace), the time limit
# in milliseconds, the host bash, the line.
set -eu
W=$1 RUN_AS=$2 LIMIT_MS=$3 BASH_HOST=$4 LINE=$5
R=$W/root

ro_bind() {
	if [ -d "$1" ]; then mkdir -p "$2"; else touch "$2"; fi
	mount --bind "$1" "$2"
	mount -o remount,bind,ro,nosuid,nodev "$2"
}

# Everything the line can write lives on this tmpfs, capped; the oracle's
# own files (stubs, log, output) on a second one the snapshot leaves out.
# The tree (stubs, seeded files) was prepared on the host by oracle::shell.
mount -t tmpfs -o size=64m,nr_inodes=16384,mode=755 rbv-root "$R"
mkdir "$R/rbv"
mount -t tmpfs -o size=16m,nr_inodes=16384,mode=755 rbv-oracle "$R/rbv"
cp -a "$W/tree/." "$R/"

# The host's programs and libraries, read-only, where only the stubs and
# the dynamic loader look for them: /usr/bin itself holds stubs only.
ro_bind /usr "$R/rbv/host/usr"
if [ -d /bin ] && [ ! -L /bin ]; then ro_bind /bin "$R/rbv/host/bin"; fi
for l in lib lib32 lib64 libx32; do
	if [ -L "/$l" ]; then
		ln -s "$(readlink "/$l")" "$R/$l"
	elif [ -d "/$l" ]; then
		ro_bind "/$l" "$R/$l"
	fi
	if [ -L "/usr/$l" ]; then
		ln -s "$(readlink "/usr/$l")" "$R/usr/$l"
	elif [ -d "/usr/$l" ]; then
		ro_bind "/usr/$l" "$R/usr/$l"
	fi
done
for d in null zero full random urandom; do
	[ -e "/dev/$d" ] || continue
	touch "$R/dev/$d"
	mount --bind "/dev/$d" "$R/dev/$d"
done
if [ -n "$RUN_AS" ]; then
	chown -R "$RUN_AS:$RUN_AS" "$R/home/user" "$R/tmp" "$R/rbv/log" "$R/rbv/out"
fi
BASH_IN=/rbv/host$BASH_HOST

snap() {
	(cd "$R" && find . -xdev \( -path ./rbv -o -path ./dev \) -prune -o \
		-printf '%y\0%p\0%s\0%T@\0%m\0%U:%G\0%l\0')
}

# The line's process: limits, the sandbox's root, then (as root) a uid
# of its own, no capabilities either way (so no way out of the chroot),
# a clean environment.
as_line() {
	ulimit -S -H -u 128 -f 16384 -v 1048576 -t 10 -n 256 -c 0
	local who=(--bounding-set=-all --inh-caps=-all --no-new-privs)
	if [ -n "$RUN_AS" ]; then
		who+=(--reuid="$RUN_AS" --regid="$RUN_AS" --clear-groups)
	fi
	exec chroot "$R" /rbv/host/usr/bin/setpriv "${who[@]}" -- \
		/rbv/host/usr/bin/env -i -C /home/user HOME=/home/user USER=user \
		LOGNAME=user PATH=/usr/bin:/bin LC_ALL=C SHELL=/bin/bash "$@"
}

printf 'rbv-sandbox 1\0'
printf 'before\0'
snap
printf 'end\0'

parsed=0
(as_line "$BASH_IN" -n -c "$LINE") </dev/null >/dev/null 2>&1 || parsed=$?

start=${EPOCHREALTIME/./}
(as_line BASH_ENV=/rbv/env.sh "$BASH_IN" -c "$LINE") </dev/null >"$R/rbv/out" 2>&1 &
pid=$!
timed_out=0
# Until nothing but this process is left: the line's background jobs and
# orphans count too (kill -0 -1 signals every other process here).
while kill -0 -1 2>/dev/null; do
	now=${EPOCHREALTIME/./}
	if ((now - start > LIMIT_MS * 1000)); then
		timed_out=1
		kill -9 -1 2>/dev/null || true
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 -1 2>/dev/null || break
			sleep 0.02
		done
		break
	fi
	sleep 0.005
done
set +e
wait "$pid"
status=$?
set -e
elapsed=$((${EPOCHREALTIME/./} - start))

printf 'after\0'
snap
printf 'end\0'
printf 'status\0%s\0%s\0%s\0%s\0' "$status" "$timed_out" "$parsed" "$elapsed"
printf 'log\0'
n=0
for f in "$R"/rbv/log/*; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	if ((n > 400)); then continue; fi
	s=$(stat -c %s -- "$f")
	if ((s > 65536)); then s=65536; fi
	printf '%s\0%s\0' "${f##*/}" "$s"
	head -c "$s" -- "$f"
done
printf 'end\0%s\0' "$n"
s=$(stat -c %s "$R/rbv/out")
if ((s > 4096)); then s=4096; fi
printf 'out\0%s\0' "$s"
head -c "$s" "$R/rbv/out"
