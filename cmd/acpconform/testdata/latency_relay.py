#!/usr/bin/env python3
"""A correct stdio relay that is slow: it runs its agent command line
(argv[2:], joined, through the shell, as a {agent} relay does) and passes
every line on in order, each DELAY seconds (argv[1]) after it arrived."""
import queue
import subprocess
import sys
import threading
import time

delay = float(sys.argv[1])
agent = subprocess.Popen(" ".join(sys.argv[2:]), shell=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def pump(src, dst, close_dst):
    q = queue.Queue()

    def write():
        while True:
            due, line = q.get()
            if line is None:
                break
            time.sleep(max(0.0, due - time.monotonic()))
            dst.write(line)
            dst.flush()
        if close_dst:
            dst.close()

    t = threading.Thread(target=write)
    t.start()
    for line in iter(src.readline, b""):
        q.put((time.monotonic() + delay, line))
    q.put((0, None))
    t.join()


threading.Thread(target=pump, args=(sys.stdin.buffer, agent.stdin, True), daemon=True).start()
pump(agent.stdout, sys.stdout.buffer, False)
agent.wait()
