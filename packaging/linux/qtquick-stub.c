/* Stands in for libQt6Quick.so.6 and libQt6Qml.so.6 in the bundle (built by
 * packaging/_trim.py at package time).
 *
 * Qt Multimedia's FFmpeg plugin links Qt Quick (and so QML, ~16 MB) for one feature Parley
 * never uses, capturing a Qt Quick window: it asks whether a window is a QQuickWindow
 * (qobject_cast compares the window's metaobject chain with this one's address: an all-zero
 * metaobject matches no window) and would then grab it. Those are the only two symbols it
 * takes from Qt Quick, and none from QML. */
#include <stdlib.h>

/* QMetaObject is seven pointers: superdata, strings, data, static_metacall, related
 * metaobjects, meta types, extra data. */
__attribute__((visibility("default"))) const void *_ZN12QQuickWindow16staticMetaObjectE[7];

/* QImage QQuickWindow::grabWindow(): never reached, since no window is a QQuickWindow. */
__attribute__((visibility("default"))) void _ZN12QQuickWindow10grabWindowEv(void) { abort(); }
