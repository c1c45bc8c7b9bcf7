! Fortran use of ZCom: ring neighbours (np 2: the other process), allocatable real(8) arrays;
! each process writes its own array, the peers read it in place through the attached address
! (c_f_pointer), every value checked; then errors (bad channel id) and cleanup.
program test_zcom_fortran
  use, intrinsic :: iso_c_binding
  use mpi
  use shoal_zcom
  implicit none
  integer, parameter :: n = 5000, rounds = 50
  integer :: ierr, rank, nprocs, nt, i, r, k, fails, allfails
  integer(c_int) :: targets(2), ids(2), err
  real(c_double), allocatable, target :: a1(:), a2(:)
  type(c_ptr) :: bufs(2), att(2)
  integer(c_size_t) :: sizes(2)
  real(c_double), pointer :: peer(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  fails = 0
  allocate(a1(n), a2(n))
  a1 = -1.0d0
  a2 = -1.0d0
  if (nprocs == 2) then
    nt = 1
    targets(1) = 1 - rank
  else
    nt = 2
    targets(1) = mod(rank + nprocs - 1, nprocs)
    targets(2) = mod(rank + 1, nprocs)
  end if
  bufs(1) = c_loc(a1)
  bufs(2) = c_loc(a2)
  sizes = int(n, c_size_t) * 8_c_size_t

  call ZCom_init(bufs, sizes, MPI_COMM_WORLD, targets, int(nt, c_int), att, ids, err)
  if (err /= ZCOM_SUCCESS) then
    print *, 'test_zcom_fortran: rank', rank, 'ZCom_init failed', err
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if

  do r = 1, rounds
    do i = 1, nt
      do while (ZCom_can_write(ids(i), err) == 0)
        call check_err(err)
      end do
      if (i == 1) then
        do k = 1, n
          a1(k) = rank * 1.0d6 + r * 1.0d3 + k
        end do
      else
        do k = 1, n
          a2(k) = rank * 1.0d6 + r * 1.0d3 + k
        end do
      end if
      call ZCom_have_written(ids(i), err)
      call check_err(err)
    end do
    do i = 1, nt
      do while (ZCom_can_read(ids(i), err) == 0)
        call check_err(err)
      end do
      call c_f_pointer(att(i), peer, [n])
      do k = 1, n
        if (peer(k) /= targets(i) * 1.0d6 + r * 1.0d3 + k) fails = fails + 1
      end do
      call ZCom_have_read(ids(i), err)
      call check_err(err)
    end do
  end do

  ! an unknown channel id is an error, not a crash
  if (ZCom_can_write(12345_c_int, err) /= 0 .or. err /= ZCOM_ERR_CHANNEL) fails = fails + 1

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call ZCom_cleanup(ids, int(nt, c_int), MPI_COMM_WORLD, err)
  if (err /= ZCOM_SUCCESS) fails = fails + 1
  ! the arrays are still ours, with their last contents
  if (a1(n) /= rank * 1.0d6 + rounds * 1.0d3 + n) fails = fails + 1
  a1 = 0.0d0
  deallocate(a1, a2)

  call MPI_Allreduce(fails, allfails, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (allfails == 0) then
      print '(a)', 'test_zcom_fortran: OK'
    else
      print '(a,i0,a)', 'test_zcom_fortran: FAILED (', allfails, ' failures)'
    end if
  end if
  call MPI_Finalize(ierr)
  if (allfails /= 0) stop 1

contains
  subroutine check_err(e)
    integer(c_int), intent(in) :: e
    if (e /= ZCOM_SUCCESS) then
      fails = fails + 1
      print *, 'test_zcom_fortran: rank', rank, 'error', e
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine
end program
