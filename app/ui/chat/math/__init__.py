"""Math in messages: found in Markdown (:mod:`.syntax`), typeset to images (:mod:`.render`),
placed in a message's document (:mod:`.typeset`) and read back as its source (:mod:`.source`)."""
