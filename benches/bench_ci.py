import time, numpy as np, kscore.eval as K, scorio.eval as S, sys
rng=np.random.default_rng(0)
def bank(M,N):
    p=rng.beta(0.6,0.6,size=(M,1)); return (rng.random((M,N))<p).astype(np.int8)
def t(fn,*a,reps=3):
    best=1e9
    for _ in range(reps):
        s=time.perf_counter(); r=fn(*a); best=min(best,time.perf_counter()-s)
    return best,r
cases=[('maj_at_k_ci',(1000,512),(256,)),('g_pass_at_k_tau_ci',(1000,512),(256,0.3)),('mg_pass_at_k_ci',(1000,512),(256,)),
       ('geo_spectrum_at_k_ci',(1000,64),(256,)),('auc_at_k_ci',(1000,512),(512,))]
run_scorio = '--scorio' in sys.argv
for name,(M,N),args in cases:
    R=bank(M,N)
    tk,rk=t(getattr(K,name),R,*args)
    line=f"{name:22s} M={M} N={N} args={args}: kscore {tk*1e3:8.1f} ms"
    if run_scorio:
        ts,rs=t(getattr(S,name),R,*args,reps=1)
        line+=f"  scorio {ts:7.2f} s  dmu={abs(rk[0]-rs[0]):.1e} dsig_rel={abs(rk[1]-rs[1])/rs[1]:.1e}"
    print(line, flush=True)
R=bank(1000,100000)
tk,rk=t(K.maj_at_k_ci,R,100000,reps=1)
print(f"maj_at_k_ci M=1000 N=100000 k=100000: kscore {tk:.3f} s  {rk}")
R=bank(100,100000)
tk,rk=t(K.maj_at_k_ci,R,100000,reps=1)
print(f"maj_at_k_ci M=100 N=100000 k=100000: kscore {tk:.3f} s  {rk}")
