"""What the chat draws for its media blocks (cards, thumbnails, outlines) and the windows that
show one whole (image viewer, text viewer). The message renderer and the delegate use these;
what a click on a block does (``chat.media_actions``) and the inline player (``chat.player``)
sit above the delegate and the view, so nothing here imports either."""
