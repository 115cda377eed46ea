"""A freedesktop notification service for tests: owns ``org.freedesktop.Notifications`` on
the bus at ``argv[1]`` and writes each ``Notify`` it takes (with the specification's
signature; any other is refused, as real servers do) to ``argv[2]``, one JSON line each.
Prints ``ready`` once it owns the name."""

from __future__ import annotations

import json
import sys

from jeepney import HeaderFields, MessageType, new_error, new_method_return
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

SIGNATURE = "susssasa{sv}i"


def main(address: str, out_path: str) -> None:
    connection = open_dbus_connection(bus=address)
    connection.send_and_get_reply(message_bus.RequestName("org.freedesktop.Notifications"))
    print("ready", flush=True)
    with open(out_path, "a", encoding="utf-8") as out:
        while True:
            message = connection.receive()
            if message.header.message_type != MessageType.method_call:
                continue
            member = message.header.fields.get(HeaderFields.member)
            signature = message.header.fields.get(HeaderFields.signature, "")
            if member == "Notify" and signature == SIGNATURE:
                app, _id, _icon, summary, body = message.body[:5]
                out.write(json.dumps({"app": app, "summary": summary, "body": body}) + "\n")
                out.flush()
                connection.send(new_method_return(message, "u", (1,)))
            else:
                connection.send(
                    new_error(message, "org.freedesktop.DBus.Error.InvalidArgs", "s", (signature,))
                )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
