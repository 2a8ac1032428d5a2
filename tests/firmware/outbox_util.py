# Helpers of the outbox tests (not tests).
from baoboard.journal import Journal
from baoboard.memstorage import FakeStorage
from baoboard.outbox import Outbox
from baoproto.frames import decode
from fwtest_util import Clock, FakeSerial

EPOCH = "0badcafe"


def make(fs=None, handler=None):
    fs = fs or FakeStorage()
    j = Journal(fs, epoch_fn=lambda: EPOCH)
    j.open()
    ser = FakeSerial()
    clk = Clock()
    ob = Outbox(j, ser.write, clk, hello="fw=0.1.0 rules=1 board=e661", timeout_ms=1000)
    if handler is not None:
        ob.on_command = handler
    return ob, ser, clk, fs


def frames(ser):
    return [decode(line[:-1]) for line in ser.take()]
