# bash completion for sprof (installed as share/bash-completion/completions/sprof).
# Completes options, -f formats, -d dumps, and for the program word: stdlib
# script names (share/sprof next to the sprof being completed, then
# /usr/share/sprof, /usr/local/share/sprof), probe types, files, and probe
# names from `sprof -l 'WORD*'` for the word being completed (tracepoints need
# root for that: without it the listing is empty). Probe names contain ':',
# which bash splits words at: the whole word is taken from COMP_LINE and the
# part up to its last ':' is cut from the answers, as bash-completion's
# __ltrim_colon_completions does. Needs nothing but bash.

_sprof_stdlib_names()
{
    local bin dir f
    bin=$(type -P "$1" 2>/dev/null) || return 0
    bin=$(readlink -f "$bin")
    for dir in "${bin%/*}/../share/sprof" /usr/share/sprof /usr/local/share/sprof; do
        for f in "$dir"/*.sp; do
            [[ -e $f ]] || continue
            f=${f##*/}
            printf '%s\n' "${f%.sp}"
        done
    done
}

_sprof()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local line=${COMP_LINE:0:COMP_POINT} word bin=${COMP_WORDS[0]}
    local opts="-e -p -c --no-follow -o -f -d -l -v -q -k -kk --info --usdt-file-activation --duration --continuous --max-keys --map --title --strlen --no-inline --no-cache --stats
                --no-warnings --map-size --interp --export --host-name --password-file --spool --spool-size --spool-age --retention --unsafe -I --include --emit-elf --dry-run --probe-filter --param --list-scripts -h --help -V --version"
    local types="BEGIN END profile:hz: interval:s: interval:ms: software: hardware:
                 uprobe: uretprobe: usdt: tracepoint: rawtracepoint: kprobe: kretprobe:
                 fentry: fexit: kfunc: kretfunc: iter: watchpoint: asyncwatchpoint:"
    local names probes IFS=$'\n'
    COMPREPLY=()
    case $prev in
    -f) COMPREPLY=($(compgen -W $'text\njson\nfolded\nsvg\npprof\nspeedscope\nresidency' -- "$cur")); return ;;
    --interp) COMPREPLY=($(compgen -W $'memory\nusdt\noff' -- "$cur")); return ;;
    -d) COMPREPLY=($(compgen -W $'tokens\nast\ntypes\nir\nir-raw\nbpf\nverifier\nplan' -- "$cur")); return ;;
    --spool) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    -o|--emit-elf|--include|--password-file) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    -c) COMPREPLY=($(compgen -c -- "$cur")); return ;;
    -p) COMPREPLY=($(compgen -W "$(ps -eo pid= 2>/dev/null | tr -d ' ')" -- "$cur")); return ;;
    -e|--duration|--continuous|--max-keys|--map-size|--map|--title|--strlen|--param|--export|--host-name|--retention|--spool-size|--spool-age|--probe-filter) return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "${opts//[[:space:]]/$'\n'}" -- "$cur"))
        return
    fi
    word=${line##*[[:space:]]}
    word=${word#[\'\"]}
    names=$(_sprof_stdlib_names "$bin" | sort -u)
    [[ -n $word ]] && probes=$("$bin" -l "$word*" 2>/dev/null | head -n 5000)
    COMPREPLY=($(compgen -W "$names"$'\n'"${types//[[:space:]]/$'\n'}"$'\n'"$probes" -- "$word"))
    [[ $word == *:* ]] || COMPREPLY+=($(compgen -f -- "$word"))
    if [[ $word == *:* && $COMP_WORDBREAKS == *:* ]]; then
        local colon_prefix=${word%"${word##*:}"} i
        for i in "${!COMPREPLY[@]}"; do
            COMPREPLY[i]=${COMPREPLY[i]#"$colon_prefix"}
        done
    fi
    # a probe type ("profile:hz:") goes on with its arguments: no space after it
    [[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == *: ]] && compopt -o nospace 2>/dev/null
    return 0
}
complete -F _sprof sprof
